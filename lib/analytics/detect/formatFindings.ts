import type { EvaluateResult } from './evaluateRules.ts';
import type { Finding } from './finding.ts';
import { SEVERITIES, type Severity } from './ruleSchema.ts';

/** Whether any finding is at or above `floor` (`detect --fail-on`). */
export function anyAtOrAbove(findings: readonly Finding[], floor: Severity): boolean {
  const min = SEVERITIES.indexOf(floor);
  return findings.some((f) => SEVERITIES.indexOf(f.severity) >= min);
}

/** Findings as JSON objects (times ISO 8601; `new` when this evaluation claimed it). */
export function findingsJson(result: EvaluateResult): Record<string, unknown>[] {
  const fresh = new Set(result.delivered.map((f) => f.finding_id));
  return result.findings.map((f) => ({
    ...f,
    first_seen: f.first_seen.toISOString(),
    last_seen: f.last_seen.toISOString(),
    detected_at: f.detected_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
    new: fresh.has(f.finding_id),
  }));
}

/** A plain table: one line per finding, most severe first, then a count per rule. */
export function formatFindings(result: EvaluateResult): string {
  const fresh = new Set(result.delivered.map((f) => f.finding_id));
  const sorted = [...result.findings].sort(
    (a, b) =>
      SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity) ||
      a.rule_id.localeCompare(b.rule_id) ||
      a.entity.localeCompare(b.entity),
  );
  const cut = (s: string) => (s.length > 40 ? `${s.slice(0, 39)}…` : s);
  const rows = sorted.map((f) => [
    f.severity.toUpperCase(),
    f.rule_id,
    cut(f.entity),
    f.first_seen.toISOString().slice(0, 16).replace('T', ' '),
    f.last_seen.toISOString().slice(0, 16).replace('T', ' '),
    String(f.hits),
    fresh.has(f.finding_id) ? 'new' : 'seen',
  ]);
  const header = ['SEVERITY', 'RULE', 'ENTITY', 'FIRST SEEN', 'LAST SEEN', 'HITS', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const warming = new Set(result.warmingUp);
  const perRule = Object.entries(result.perRule)
    .map(([id, n]) => (warming.has(id) ? `${id} warming up` : `${id} ${n}`))
    .join(', ');
  if (rows.length === 0) return `no findings (rules: ${perRule})\n`;
  return `${[line(header), ...rows.map(line)].join('\n')}\n${rows.length} finding${rows.length === 1 ? '' : 's'} (${perRule})\n`;
}

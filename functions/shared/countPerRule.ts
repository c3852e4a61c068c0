import type { Finding } from '../../lib/analytics/detect/finding.ts';
import type { DETECT_METRIC } from './detectTelemetry.ts';

/** Counts findings per rule and severity (Powertools single metrics with both dimensions in AWS). */
export type FindingCounter = (
  metric: typeof DETECT_METRIC.Findings | typeof DETECT_METRIC.NewFindings,
  rule: string,
  severity: string,
  count: number,
) => void;

/** Counts `findings` per rule and severity under `metric`. */
export function countPerRule(
  count: FindingCounter,
  metric: Parameters<FindingCounter>[0],
  findings: readonly Finding[],
) {
  const n = new Map<string, { rule: string; severity: string; count: number }>();
  for (const f of findings) {
    const key = `${f.rule_id}|${f.severity}`;
    n.set(key, { rule: f.rule_id, severity: f.severity, count: (n.get(key)?.count ?? 0) + 1 });
  }
  for (const c of n.values()) count(metric, c.rule, c.severity, c.count);
}

import type { Clock } from '../clock/clock.ts';
import { type Day, toDay } from '../clock/day.ts';
import type { Logger } from '../log/logger.ts';
import { dedupeKeyOf, type Finding, findingIdOf, periodStart, type RuleHit } from './finding.ts';
import type { FindingLedger } from './findingLedger.ts';
import { renderRuleSql } from './renderRuleSql.ts';
import type { RuleEngine } from './ruleEngine.ts';
import { toRuleHit } from './ruleEngine.ts';
import { type DetectionRule, durationMs } from './ruleSchema.ts';
import { type DetectionSettings, effectiveSettings, NO_OVERRIDES, ruleEnabled } from './ruleSettings.ts';

export interface EvaluateDeps {
  engine: RuleEngine;
  ledger: FindingLedger;
  clock: Clock;
  logger: Logger;
  /** Stores the findings (the `findings/` dataset through the committer); idempotent by finding id. */
  commitFindings?: (findings: readonly Finding[]) => Promise<unknown>;
  /** Delivers one new finding (SNS in AWS); called only for findings whose claim this evaluation took. */
  deliver?: (finding: Finding, rule: DetectionRule) => Promise<void>;
}

export interface EvaluateOptions {
  rules: readonly DetectionRule[];
  overrides?: DetectionSettings;
  /** First evaluated day (default: now − the rule's lookback). */
  since?: Day;
  until?: Day;
}

export interface EvaluateResult {
  findings: Finding[];
  /** Findings this evaluation claimed (and delivered, when `deliver` is given). */
  delivered: Finding[];
  /** Findings per rule id (what the metrics count). */
  perRule: Record<string, number>;
}

/** A rule's hit as a finding: its dedupe key, period, stable id and partition (the period's first day). */
export function toFinding(rule: DetectionRule, hit: RuleHit, now: Date, source: Finding['source']): Finding {
  const dedupe_key = dedupeKeyOf(rule.id, rule.dedupe.key, hit);
  const start = periodStart(now, durationMs(rule.dedupe.period));
  return {
    ...hit,
    finding_id: findingIdOf(dedupe_key, start),
    rule_id: rule.id,
    title: rule.title,
    severity: rule.severity,
    source,
    dedupe_key,
    period_start: start,
    detected_at: now,
    dt: toDay(start),
  };
}

/** The window a rule evaluates: the given days, or its lookback back from now. */
export function ruleWindow(
  rule: DetectionRule,
  now: Date,
  since?: Day,
  until?: Day,
): { since: Day; until: Day } {
  return {
    since: since ?? toDay(new Date(now.getTime() - durationMs(rule.lookback))),
    until: until ?? toDay(now),
  };
}

/** The rules whose schedule has a tick within the `tickMs` that ends at `now` (the stack's schedule period). */
export function dueRules(rules: readonly DetectionRule[], now: Date, tickMs: number): DetectionRule[] {
  return rules.filter((r) => now.getTime() % durationMs(r.schedule) < tickMs);
}

/**
 * Evaluates `rules` once: renders each rule's SQL with its effective settings and window, runs it,
 * turns its rows into findings, stores them all (`commitFindings`), then claims each one in the ledger
 * and delivers the ones this evaluation claimed. Two evaluations of the same rules, one after the other
 * or at once, deliver each finding once (the claim is the dedupe).
 */
export async function evaluateRules(deps: EvaluateDeps, opts: EvaluateOptions): Promise<EvaluateResult> {
  const overrides = opts.overrides ?? NO_OVERRIDES;
  const now = deps.clock.now();
  const findings: Finding[] = [];
  const perRule: Record<string, number> = {};
  const byId = new Map<string, DetectionRule>();
  for (const rule of opts.rules) {
    if (!ruleEnabled(rule, overrides)) continue;
    byId.set(rule.id, rule);
    const sql = renderRuleSql(
      rule.sql,
      effectiveSettings(rule, overrides),
      ruleWindow(rule, now, opts.since, opts.until),
    );
    const rows = await deps.engine.runRule(sql);
    const unique = new Map<string, Finding>();
    for (const row of rows) {
      const f = toFinding(rule, toRuleHit(rule.id, row), now, 'scheduled');
      const seen = unique.get(f.finding_id);
      // Two rows with one dedupe key in a period (e.g. two days of one token): one finding, summed.
      unique.set(f.finding_id, seen ? mergeFindings(seen, f) : f);
    }
    perRule[rule.id] = unique.size;
    findings.push(...unique.values());
    deps.logger.debug('rule evaluated', { rule: rule.id, findings: unique.size });
  }
  if (findings.length > 0) await deps.commitFindings?.(findings);
  const delivered = await claimAndDeliver(deps, findings, (id) => byId.get(id));
  return { findings, delivered, perRule };
}

/** Claims each finding and delivers those this caller claimed (shared by scheduled and live rules). */
export async function claimAndDeliver(
  deps: Pick<EvaluateDeps, 'ledger' | 'deliver'>,
  findings: readonly Finding[],
  ruleOf: (id: string) => DetectionRule | undefined,
): Promise<Finding[]> {
  const delivered: Finding[] = [];
  for (const f of findings) {
    const rule = ruleOf(f.rule_id);
    if (!rule) continue;
    const expires = new Date(f.period_start.getTime() + 2 * durationMs(rule.dedupe.period));
    if (!(await deps.ledger.claim(f.finding_id, f.dedupe_key, expires))) continue;
    await deps.deliver?.(f, rule);
    delivered.push(f);
  }
  return delivered;
}

function mergeFindings(a: Finding, b: Finding): Finding {
  return {
    ...a,
    first_seen: new Date(Math.min(a.first_seen.getTime(), b.first_seen.getTime())),
    last_seen: new Date(Math.max(a.last_seen.getTime(), b.last_seen.getTime())),
    hits: a.hits + b.hits,
    record_ids: [...new Set([...a.record_ids, ...b.record_ids])].sort(),
  };
}

import { addDays, type Clock, type Day, type Logger, toDay } from '../../foundation/index.ts';
import { dedupeKeyOf, type Finding, type RuleHit } from './finding.ts';
import type { FindingLedger } from './findingLedger.ts';
import {
  deliveryPending,
  findingFromJson,
  markDelivered,
  observeIncident,
  RECORD_ID_SAMPLE,
  updateOutbox,
} from './incidentLedger.ts';
import { renderRuleSql } from './renderRuleSql.ts';
import type { RuleEngine } from './ruleEngine.ts';
import { toRuleHit } from './ruleEngine.ts';
import { type DetectionRule, durationMs } from './ruleSchema.ts';
import { type DetectionSettings, effectiveSettings, NO_OVERRIDES, ruleEnabled } from './ruleSettings.ts';

/** `new`: the incident's first delivery (the alert); `updated`: a later revision of it. */
export type DeliveryStatus = 'new' | 'updated';

export interface EvaluateDeps {
  engine: RuleEngine;
  ledger: FindingLedger;
  clock: Clock;
  logger: Logger;
  /** Stores new and updated findings (the `findings/` dataset through the committer); idempotent by id. */
  commitFindings?: (findings: readonly Finding[]) => Promise<unknown>;
  /**
   * Delivers one finding this evaluation holds: `new` once per incident (SNS and events), `updated`
   * for a later revision (events). A throw leaves it in the outbox for the next evaluation.
   */
  deliver?: (finding: Finding, rule: DetectionRule, status: DeliveryStatus) => Promise<void>;
}

export interface EvaluateOptions {
  rules: readonly DetectionRule[];
  overrides?: DetectionSettings;
  /** First day read (default: now − the rule's lookback − its window). */
  since?: Day;
  until?: Day;
  /**
   * The instant the rules evaluate (default: the clock's now): their days, and how long a session still
   * open has lasted. An evaluation repeated at the same instant (a retried scheduled event, `detect
   * --now` run again) sees the same incidents and writes no revision; the ledger's leases and the
   * findings' `detected_at` keep the clock's time.
   */
  at?: Date;
}

export interface EvaluateResult {
  /** Every incident the rules see now, in its current state. */
  findings: Finding[];
  /** Incidents new in this evaluation (or finished from the outbox): delivered as `new`. */
  delivered: Finding[];
  /** Incidents this evaluation updated and delivered as `updated`. */
  updated: Finding[];
  /** Incidents per rule id (what the metrics count). */
  perRule: Record<string, number>;
  /** Rules with a baseline the archive does not hold yet: quiet until it does. */
  warmingUp: string[];
}

/** The days a rule reads: the given ones, or its lookback and window back from now. */
export function ruleWindow(
  rule: DetectionRule,
  now: Date,
  since?: Day,
  until?: Day,
): { since: Day; until: Day } {
  const back = durationMs(rule.lookback) + durationMs(rule.window);
  return {
    since: since ?? toDay(new Date(now.getTime() - back)),
    until: until ?? toDay(now),
  };
}

/** The rules whose schedule has a tick within the `tickMs` that ends at `now` (the stack's schedule period). */
export function dueRules(rules: readonly DetectionRule[], now: Date, tickMs: number): DetectionRule[] {
  return rules.filter((r) => now.getTime() % durationMs(r.schedule) < tickMs);
}

/** How long an incident replaced by a newer one is remembered: as long as an evaluation can still see it. */
export const rememberMs = (rule: DetectionRule) =>
  durationMs(rule.lookback) + durationMs(rule.window) + durationMs(rule.quiet_gap) + 2 * 86_400_000;

const text = (a: string | null, b: string | null) => (a ?? '').localeCompare(b ?? '');

/**
 * A total order of a rule's rows (activity first, then every other column), so the rows merge the
 * same way in whatever order an engine returns them (DuckDB's parallel aggregation, Athena's pages).
 */
export function compareHits(a: RuleHit, b: RuleHit): number {
  return (
    +a.first_seen - +b.first_seen ||
    +a.last_seen - +b.last_seen ||
    text(a.entity, b.entity) ||
    text(a.token_hmac, b.token_hmac) ||
    text(a.client_network, b.client_network) ||
    text(a.session_id, b.session_id) ||
    a.hits - b.hits ||
    text(a.record_ids.join(','), b.record_ids.join(','))
  );
}

/**
 * A rule's rows as incident candidates: grouped by its dedupe key, and within a key split where the
 * activity pauses for longer than the rule's quiet gap (one incident per burst). The same rows in any
 * order, with their ids in any order, give the same candidates.
 */
export function toCandidates(
  rule: DetectionRule,
  hits: readonly RuleHit[],
  now: Date,
  source: Finding['source'],
): Finding[] {
  const gap = durationMs(rule.quiet_gap);
  const byKey = new Map<string, RuleHit[]>();
  for (const h of hits) {
    const key = dedupeKeyOf(rule.id, rule.dedupe.key, h);
    const row = { ...h, record_ids: [...new Set(h.record_ids)].sort() };
    const rows = byKey.get(key);
    if (rows) rows.push(row);
    else byKey.set(key, [row]);
  }
  const out: Finding[] = [];
  for (const key of [...byKey.keys()].sort()) {
    const rows = (byKey.get(key) ?? []).sort(compareHits);
    let cur: Finding | undefined;
    for (const h of rows) {
      if (cur && h.first_seen.getTime() <= cur.last_seen.getTime() + gap) {
        const ids = new Set([...cur.record_ids, ...h.record_ids]);
        cur = {
          ...cur,
          last_seen: new Date(Math.max(cur.last_seen.getTime(), h.last_seen.getTime())),
          hits: rule.hits === 'sum' ? cur.hits + h.hits : Math.max(cur.hits, h.hits),
          record_ids: [...ids].sort(),
          record_count: ids.size,
          token_hmac: cur.token_hmac ?? h.token_hmac,
          client_network: cur.client_network ?? h.client_network,
          session_id: cur.session_id ?? h.session_id,
        };
        continue;
      }
      if (cur) out.push(cur);
      cur = toFinding(rule, h, key, now, source);
    }
    if (cur) out.push(cur);
  }
  return out;
}

/** A rule's hit as an incident candidate (revision 0; the ledger gives it its id when it claims it). */
export function toFinding(
  rule: DetectionRule,
  hit: RuleHit,
  key: string,
  now: Date,
  source: Finding['source'],
): Finding {
  const ids = [...new Set(hit.record_ids)].sort();
  return {
    ...hit,
    record_ids: ids,
    record_count: ids.length,
    finding_id: '',
    rule_id: rule.id,
    rule_uid: rule.uid,
    title: rule.title,
    severity: rule.level,
    source,
    dedupe_key: key,
    detected_at: now,
    updated_at: now,
    revision: 0,
    dt: toDay(now),
  };
}

/** Whether the archive holds the rule's baseline (`baseline_days` before the days it reads). */
export function warmedUp(baselineDays: unknown, since: Day, oldest: Day | undefined): boolean {
  if (typeof baselineDays !== 'number') return true;
  return oldest !== undefined && oldest <= addDays(since, -baselineDays);
}

/**
 * Evaluates `rules` once: first finishes what an earlier evaluation left in the outbox; then renders
 * each rule's SQL (its effective settings, the days it reads, now), runs it, turns its rows into
 * incident candidates and records each in the ledger (new, updated, or already known); stores the new
 * and updated ones (`commitFindings`) and delivers those this evaluation holds. Scheduled and live
 * evaluations, one after the other or at once, deliver each incident once as `new`.
 */
export async function evaluateRules(deps: EvaluateDeps, opts: EvaluateOptions): Promise<EvaluateResult> {
  const overrides = opts.overrides ?? NO_OVERRIDES;
  const now = deps.clock.now();
  const at = opts.at ?? now;
  const candidates: Finding[] = [];
  const perRule: Record<string, number> = {};
  const warmingUp: string[] = [];
  const byId = new Map<string, DetectionRule>();
  let oldest: Day | undefined | null = null;
  for (const rule of opts.rules) {
    if (!ruleEnabled(rule, overrides)) continue;
    byId.set(rule.id, rule);
    const settings = effectiveSettings(rule, overrides);
    const window = ruleWindow(rule, at, opts.since, opts.until);
    if (typeof settings.baseline_days === 'number') {
      if (oldest === null) oldest = await deps.engine.oldestDay();
      if (!warmedUp(settings.baseline_days, window.since, oldest)) {
        warmingUp.push(rule.id);
        perRule[rule.id] = 0;
        deps.logger.info('rule warming up', { rule: rule.id, baseline_days: settings.baseline_days, oldest });
        continue;
      }
    }
    const sql = renderRuleSql(rule.sql, settings, {
      ...window,
      now: at,
      windowSeconds: durationMs(rule.window) / 1000,
    });
    const rows = await deps.engine.runRule(sql);
    const found = toCandidates(
      rule,
      rows.map((r) => toRuleHit(rule.id, r)),
      now,
      'scheduled',
    );
    perRule[rule.id] = found.length;
    candidates.push(...found);
    deps.logger.debug('rule evaluated', { rule: rule.id, incidents: found.length });
  }
  const recorded = await recordIncidents(deps, candidates, (id) => byId.get(id), now);
  return { ...recorded, perRule, warmingUp };
}

/**
 * The lifecycle and delivery of candidates (shared by scheduled and live rules): their keys go into the
 * outbox first, each is observed in the ledger, the new and updated ones are stored and delivered, then
 * marked delivered and taken out of the outbox. Keys an earlier evaluation left in the outbox are
 * finished here too (a crash between claim and publish loses nothing).
 */
export async function recordIncidents(
  deps: Pick<EvaluateDeps, 'ledger' | 'deliver' | 'commitFindings' | 'logger'>,
  candidates: readonly Finding[],
  ruleOf: (id: string) => DetectionRule | undefined,
  now: Date,
): Promise<Pick<EvaluateResult, 'findings' | 'delivered' | 'updated'>> {
  const { ledger } = deps;
  const keys = new Set(candidates.map((c) => c.dedupe_key));
  const left = (await ledger.readOutbox()).keys.filter((k) => !keys.has(k));
  if (keys.size > 0) await updateOutbox(ledger, (held) => new Set([...held, ...keys]));
  const findings: Finding[] = [];
  const toDeliver: { finding: Finding; alert: boolean }[] = [];
  // In key order: every evaluation meets the same keys in the same order.
  const ordered = [...candidates].sort(
    (a, b) => a.dedupe_key.localeCompare(b.dedupe_key) || +a.first_seen - +b.first_seen,
  );
  for (const c of ordered) {
    const rule = ruleOf(c.rule_id);
    if (!rule) continue;
    const o = await observeIncident(ledger, c, {
      quietGapMs: durationMs(rule.quiet_gap),
      rememberMs: rememberMs(rule),
      now,
    });
    findings.push(o.finding);
    if (o.deliver) toDeliver.push({ finding: o.finding, alert: o.alert });
  }
  for (const key of left) {
    // Another evaluation's unfinished delivery: take it over once its lease ran out.
    const held = await ledger.read(key);
    if (held === undefined) continue;
    const f = findingFromJson(held.entry.finding);
    const rule = ruleOf(f.rule_id);
    if (!rule) continue;
    const o = await observeIncident(
      ledger,
      { ...f, revision: 0 },
      {
        quietGapMs: durationMs(rule.quiet_gap),
        rememberMs: rememberMs(rule),
        now,
      },
    );
    if (o.deliver) toDeliver.push({ finding: o.finding, alert: o.alert });
  }
  const delivered: Finding[] = [];
  const updated: Finding[] = [];
  if (toDeliver.length > 0) await deps.commitFindings?.(toDeliver.map((d) => d.finding));
  let failure: unknown;
  for (const { finding, alert } of toDeliver) {
    const rule = ruleOf(finding.rule_id);
    if (!rule) continue;
    const status: DeliveryStatus = alert ? 'new' : 'updated';
    try {
      await deps.deliver?.(
        { ...finding, record_ids: finding.record_ids.slice(0, RECORD_ID_SAMPLE) },
        rule,
        status,
      );
    } catch (error) {
      deps.logger.error('delivery failed; the outbox keeps it', {
        finding: finding.finding_id,
        error: (error as Error).message,
      });
      failure ??= error;
      continue;
    }
    await markDelivered(ledger, finding, alert);
    (alert ? delivered : updated).push(finding);
  }
  const touched = new Set([...keys, ...left]);
  const done: string[] = [];
  for (const k of touched) if (!(await deliveryPending(ledger, k))) done.push(k);
  if (done.length > 0)
    await updateOutbox(ledger, (held) => new Set([...held].filter((k) => !done.includes(k))));
  if (failure !== undefined) throw failure;
  return { findings, delivered, updated };
}

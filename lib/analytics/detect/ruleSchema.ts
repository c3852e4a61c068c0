import * as z from 'zod';
import { ATTACK_TACTICS, ATTACK_TECHNIQUES } from '../ocsf/attackIds.ts';

/** Levels, lowest first, as Sigma names them (OCSF severity_id 1..5: Informational .. Critical). */
export const SEVERITIES = ['informational', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The columns a rule's dedupe key may name. */
export const KEY_COLUMNS = ['entity', 'token_hmac', 'client_network', 'session_id', 'first_seen'] as const;
export type KeyColumn = (typeof KEY_COLUMNS)[number];

const DURATION = /^(\d+)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `1h`, `7d` in milliseconds (the rules' schedule, lookback, window and quiet gap). */
export function durationMs(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new RangeError(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

const duration = z.string().regex(DURATION, 'a duration like 30m, 1h or 7d');
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day, YYYY-MM-DD');
/** A setting value: a number, a word (time zone), or a list of words (an allowlist, days, networks). */
export const settingValue = z.union([z.number(), z.string(), z.array(z.union([z.string(), z.number()]))]);
export type SettingValue = z.infer<typeof settingValue>;

/** Cells a yml test row may set; everything else is null (or derived: record_id, session_id, dt). */
const testRow = z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string()), z.null()]));

export const ruleTestSchema = z.strictObject({
  name: z.string().min(1),
  /** The evaluated days (default: every day of the rows). */
  since: z.string().optional(),
  until: z.string().optional(),
  settings: z.record(z.string(), settingValue).optional(),
  rows: z.array(testRow),
  /** Exactly the findings the rows must produce (by entity; `hits` checked when given); [] = none. */
  findings: z.array(z.strictObject({ entity: z.string(), hits: z.number().int().optional() })),
});

const attack = z
  .strictObject({
    tactic: z
      .string()
      .refine((t) => t in ATTACK_TACTICS, 'not an ATT&CK tactic id of lib/analytics/ocsf/attackIds.ts'),
    techniques: z
      .array(
        z
          .string()
          .refine(
            (t) => t in ATTACK_TECHNIQUES,
            'not an ATT&CK technique id of lib/analytics/ocsf/attackIds.ts',
          ),
      )
      .min(1),
  })
  .refine((a) => ATTACK_TECHNIQUES[a.techniques[0] ?? '']?.tactics.includes(a.tactic) ?? false, {
    message: "the tactic must be one of the first technique's tactics",
  });

/** One detection's metadata (`detections/<id>.yml`, Sigma's fields where Sigma has one), validated when loaded. */
export const ruleMetaSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/),
    /** Stable UUID: never changes when the rule is renamed or rewritten. */
    uid: z.uuid(),
    title: z.string().min(1),
    status: z.enum(['experimental', 'test', 'stable']),
    description: z.string().min(20),
    references: z.array(z.url()).default([]),
    author: z.string().min(1),
    date: isoDay,
    modified: isoDay,
    level: z.enum(SEVERITIES),
    falsepositives: z.array(z.string().min(1)).min(1),
    attack,
    schedule: duration,
    /** History each evaluation reads before its window (the scheduled run's slack). */
    lookback: duration,
    /** The sliding window the threshold is counted in (`0m`: one session at a time). */
    window: duration,
    /** Activity of one entity within this gap of an incident's last activity belongs to that incident. */
    quiet_gap: duration,
    threshold: z.number(),
    /** How an incident's hits add up over its rows: the largest (a window's count) or the sum (sessions). */
    hits: z.enum(['max', 'sum']).default('max'),
    /** Further settings the SQL names as {{name}} (time zone, allowlist, ...); overridable per deployment. */
    settings: z.record(z.string(), settingValue).default({}),
    /** Also evaluated on every active-list snapshot (a TypeScript predicate, lib/analytics/detect/liveRules.ts). */
    live: z.boolean().default(false),
    /** The columns that name one entity of the rule (its incidents are per entity). */
    dedupe: z.strictObject({ key: z.array(z.enum(KEY_COLUMNS)).min(1) }),
    /** SQL condition over `tunnel_sessions` that lists an incident's rows: {{entity}}, {{token_hmac}}, ... */
    rows_filter: z.string().min(5),
    runbook: z.string().min(20),
    tests: z.array(ruleTestSchema).min(2),
  })
  .refine((r) => r.tests.some((t) => t.findings.length > 0) && r.tests.some((t) => t.findings.length === 0), {
    message: 'a rule needs at least one positive test (findings) and one negative test (findings: [])',
  })
  .refine((r) => r.modified >= r.date, { message: 'modified must not be before date' });

export type RuleMeta = z.infer<typeof ruleMetaSchema>;
export type RuleTest = z.infer<typeof ruleTestSchema>;

/** A loaded rule: its metadata and its SQL template. */
export interface DetectionRule extends RuleMeta {
  sql: string;
}

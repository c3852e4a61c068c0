import * as z from 'zod';

/** Severities, lowest first (OCSF severity_id 2..5: Low, Medium, High, Critical). */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

const DURATION = /^(\d+)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `1h`, `7d` in milliseconds (the rules' schedule, lookback and dedupe period). */
export function durationMs(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new RangeError(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

const duration = z.string().regex(DURATION, 'a duration like 30m, 1h or 7d');
/** A setting value: a number, a word (time zone), or a list of words (an allowlist). */
export const settingValue = z.union([z.number(), z.string(), z.array(z.string())]);
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

/** One detection's metadata (`detections/<id>.yml`), validated when loaded. */
export const ruleMetaSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/),
    title: z.string().min(1),
    severity: z.enum(SEVERITIES),
    /** MITRE ATT&CK technique ids (T1572 Protocol Tunneling for every rule here). */
    mitre: z.array(z.string().regex(/^T\d{4}(\.\d{3})?$/)).min(1),
    schedule: duration,
    lookback: duration,
    threshold: z.number(),
    /** Further settings the SQL names as {{name}} (time zone, allowlist, ...); overridable per deployment. */
    settings: z.record(z.string(), settingValue).default({}),
    /** Also evaluated on every active-list snapshot (a TypeScript predicate, lib/detect/liveRules.ts). */
    live: z.boolean().default(false),
    dedupe: z.strictObject({
      key: z.array(z.enum(['entity', 'token_hmac', 'client_network', 'session_id'])).min(1),
      period: duration,
    }),
    runbook: z.string().min(20),
    tests: z.array(ruleTestSchema).min(2),
  })
  .refine((r) => r.tests.some((t) => t.findings.length > 0) && r.tests.some((t) => t.findings.length === 0), {
    message: 'a rule needs at least one positive test (findings) and one negative test (findings: [])',
  });

export type RuleMeta = z.infer<typeof ruleMetaSchema>;
export type RuleTest = z.infer<typeof ruleTestSchema>;

/** A loaded rule: its metadata and its SQL template. */
export interface DetectionRule extends RuleMeta {
  sql: string;
}

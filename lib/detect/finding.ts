import type { Day } from '../clock/day.ts';
import { sha256Hex } from '../records/sha256Hex.ts';
import type { Severity } from './ruleSchema.ts';

/** One row a rule's SQL returns, the same columns in both engines (docs/detections.md). */
export interface RuleHit {
  entity: string;
  token_hmac: string | null;
  client_network: string | null;
  session_id: string | null;
  first_seen: Date;
  last_seen: Date;
  hits: number;
  record_ids: string[];
}

/** A rule's hit, deduplicated on the rule's key for its period, as stored under `findings/dt=…/`. */
export interface Finding extends RuleHit {
  /** 32 hex: SHA-256 of rule, dedupe key and period start (the same hit in the same period = the same id). */
  finding_id: string;
  rule_id: string;
  title: string;
  severity: Severity;
  /** `scheduled` (the rule's SQL over history) or `live` (a predicate over an active-list snapshot). */
  source: 'scheduled' | 'live';
  dedupe_key: string;
  period_start: Date;
  detected_at: Date;
  dt: Day;
}

type Keyed = Pick<RuleHit, 'entity' | 'token_hmac' | 'client_network' | 'session_id'>;

/** The dedupe key: the rule id and the key columns' values (`long_tunnel|entity=s-1`). */
export function dedupeKeyOf(ruleId: string, key: readonly (keyof Keyed)[], hit: Keyed): string {
  return [ruleId, ...key.map((k) => `${k}=${hit[k] ?? ''}`)].join('|');
}

/** Start of the dedupe period `at` falls in (periods are aligned to the Unix epoch). */
export function periodStart(at: Date, periodMs: number): Date {
  return new Date(Math.floor(at.getTime() / periodMs) * periodMs);
}

export function findingIdOf(dedupeKey: string, start: Date): string {
  return sha256Hex(`${dedupeKey}|${start.toISOString()}`).slice(0, 32);
}

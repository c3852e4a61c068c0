import { sha256Hex } from '../../archive/index.ts';
import type { Day } from '../../foundation/index.ts';
import type { FindingActivity } from '../ocsf/findingActivity.ts';
import type { KeyColumn, Severity } from './ruleSchema.ts';

/** One row a rule's SQL returns, the same columns in both engines (docs/detections.md). */
export interface RuleHit extends FindingActivity {
  record_ids: string[];
}

/**
 * One incident of a rule on one entity, as stored under `findings/dt=…/` and delivered: the hits of
 * every evaluation that saw it (scheduled or live), merged. Every field is explicit, so the OCSF mapping
 * reads them without knowing the rules.
 */
export interface Finding extends RuleHit {
  /** 32 hex: SHA-256 of the dedupe key and the incident's first activity as first claimed (stable). */
  finding_id: string;
  rule_id: string;
  /** The rule's stable UUID (its yml `uid`). */
  rule_uid: string;
  title: string;
  severity: Severity;
  /** Which evaluation saw it first: `scheduled` (the rule's SQL) or `live` (an active-list snapshot). */
  source: 'scheduled' | 'live';
  /** The rule id and the key columns' values: one entity of one rule. */
  dedupe_key: string;
  /** When the incident was first claimed. */
  detected_at: Date;
  /** When it was last updated (= detected_at while revision is 0). */
  updated_at: Date;
  /** 0 when new; each evaluation that saw more of it (later activity, more records) adds one. */
  revision: number;
  /** Distinct records behind it (record_ids may hold only a bounded sample). */
  record_count: number;
  /** UTC day of detected_at: the partition of its row. */
  dt: Day;
}

type Keyed = Pick<RuleHit, 'entity' | 'token_hmac' | 'client_network' | 'session_id' | 'first_seen'>;

/** The dedupe key: the rule id and the key columns' values (`long_tunnel|token_hmac=t|first_seen=…`). */
export function dedupeKeyOf(ruleId: string, key: readonly KeyColumn[], hit: Keyed): string {
  const value = (k: KeyColumn) => {
    const v = hit[k];
    return v instanceof Date ? v.toISOString() : (v ?? '');
  };
  return [ruleId, ...key.map((k) => `${k}=${value(k)}`)].join('|');
}

/** An incident's id: its dedupe key and the first activity of its first claim. */
export function findingIdOf(dedupeKey: string, firstSeen: Date): string {
  return sha256Hex(`${dedupeKey}|${firstSeen.toISOString()}`).slice(0, 32);
}

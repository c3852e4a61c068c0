import type { TokenPolicy } from '../records/archiveRow.ts';
import type { StoredObservedFields } from './activeState.ts';

/** What a snapshot row records about a live session. */
export type ActiveEvent = 'seen' | 'changed' | 'gone';
export const ACTIVE_EVENTS = ['seen', 'changed', 'gone'] as const;

/**
 * The observed fields of one live session, after the token policy: what `changed` compares and what the
 * state keeps as the last observation. Token columns follow history's policy: the raw value only under
 * `keep`; the HMAC-SHA256 (hex, keyed by `tokenKey`) under `keep` and `hash`; neither under `drop`.
 */
export type ObservedFields = Omit<StoredObservedFields, 'creation_time' | 'last_update_time'> & {
  creation_time: Date;
  last_update_time: Date;
};

/**
 * One row of `active/dt=YYYY-MM-DD/*.parquet` (Glue table `tunnel_active_sessions`): one per change, not
 * per snapshot. This column contract is public; change it only with a migration.
 */
export interface ActiveRow extends ObservedFields {
  /** 128-bit hex, deterministic: a re-run after a crash re-derives the same id and the commit dedupes it. */
  row_id: string;
  observed_at: Date;
  event: ActiveEvent;
}

export interface ActiveRowOptions {
  tokenPolicy: TokenPolicy;
  /** 32-byte key of the token HMACs (the same key as history's, so the two can be joined). */
  tokenKey: Uint8Array;
}

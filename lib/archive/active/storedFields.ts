import { ArchiverError } from '../../foundation/index.ts';
import type { ActiveRow, ObservedFields } from './activeRow.ts';
import type { ActiveObservation, PendingActiveRow, StoredObservedFields } from './activeState.ts';

/** Observed fields as the state stores them (times as ISO strings). */
export function toStoredFields(fields: ObservedFields): StoredObservedFields {
  return {
    ...fields,
    creation_time: fields.creation_time.toISOString(),
    last_update_time: fields.last_update_time.toISOString(),
  };
}

/** The inverse of `toStoredFields`. */
export function fromStoredFields(stored: StoredObservedFields): ObservedFields {
  return {
    id: stored.id,
    user_id: stored.user_id,
    token_id: stored.token_id,
    token: stored.token,
    token_hmac: stored.token_hmac,
    token_name: stored.token_name,
    virtual_token: stored.virtual_token,
    virtual_token_hmac: stored.virtual_token_hmac,
    virtual_token_name: stored.virtual_token_name,
    subdomain: stored.subdomain,
    customdomain: stored.customdomain,
    mode: stored.mode,
    mode_udp: stored.mode_udp,
    port: stored.port,
    creation_time: new Date(stored.creation_time),
    last_update_time: new Date(stored.last_update_time),
    extra_json: stored.extra_json,
    join_token_hmac: stored.join_token_hmac,
  };
}

/** An active row as the state's write-ahead `pending` keeps it (fields only for `gone`). */
export function toPendingRow(row: ActiveRow): PendingActiveRow {
  const base = {
    row_id: row.row_id,
    observed_at: row.observed_at.toISOString(),
    event: row.event,
    id: row.id,
  };
  return row.event === 'gone' ? { ...base, fields: toStoredFields(row) } : base;
}

/**
 * The inverse of `toPendingRow`, given the sessions stored in the same item: a `seen`/`changed` row's
 * fields are its session's. A row whose fields cannot be found means the item was not written by
 * this code: `INTERNAL`.
 */
export function fromPendingRow(
  pending: PendingActiveRow,
  sessions: Record<string, ActiveObservation>,
): ActiveRow {
  const stored = pending.fields ?? sessions[pending.id]?.fields;
  if (stored === undefined) {
    throw new ArchiverError(
      'INTERNAL',
      `pending active row ${pending.row_id} has no fields for session ${pending.id}`,
    );
  }
  return {
    row_id: pending.row_id,
    observed_at: new Date(pending.observed_at),
    event: pending.event,
    ...fromStoredFields(stored),
  };
}

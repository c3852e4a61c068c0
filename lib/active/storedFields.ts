import type { StoredActiveRow, StoredObservedFields } from '../state/stateStore.ts';
import type { ActiveRow, ObservedFields } from './activeRow.ts';

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
    token_hash: stored.token_hash,
    token_name: stored.token_name,
    virtual_token: stored.virtual_token,
    virtual_token_hash: stored.virtual_token_hash,
    virtual_token_name: stored.virtual_token_name,
    subdomain: stored.subdomain,
    customdomain: stored.customdomain,
    mode: stored.mode,
    mode_udp: stored.mode_udp,
    port: stored.port,
    creation_time: new Date(stored.creation_time),
    last_update_time: new Date(stored.last_update_time),
    extra_json: stored.extra_json,
  };
}

/** An active row as the state's write-ahead `pending` stores it. */
export function toStoredRow(row: ActiveRow): StoredActiveRow {
  return {
    ...toStoredFields(row),
    row_id: row.row_id,
    observed_at: row.observed_at.toISOString(),
    event: row.event,
  };
}

/** The inverse of `toStoredRow`. */
export function fromStoredRow(stored: StoredActiveRow): ActiveRow {
  return {
    row_id: stored.row_id,
    observed_at: new Date(stored.observed_at),
    event: stored.event,
    ...fromStoredFields(stored),
  };
}

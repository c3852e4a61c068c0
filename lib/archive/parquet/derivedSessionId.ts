import { type SessionIdFields, sessionIdOf } from '../records/recordId.ts';
import { HISTORY_COLUMN_NAMES } from './historySchema.ts';

function columnOf(name: (typeof HISTORY_COLUMN_NAMES)[number]): number {
  const at = HISTORY_COLUMN_NAMES.indexOf(name);
  if (at < 0) throw new Error(`the history schema has no ${name} column`);
  return at;
}

/** Where `session_id` is among a chunk's columns (`HISTORY_COLUMN_NAMES`). */
export const SESSION_ID_COLUMN = columnOf('session_id');
const START_TIME = columnOf('start_time');
const CLIENT_IP = columnOf('client_ip');
const MODE = columnOf('mode');
const USER_EMAIL = columnOf('user_email');
const TOKEN_HMAC = columnOf('token_hmac');
const VIRTUAL_TOKEN_HMAC = columnOf('virtual_token_hmac');

/**
 * The `session_id` of row `r` of a chunk's columns whose `session_id` was left null (see `DraftRow`): made
 * from the row's own columns, as `sessionIdOf` makes it from a record's normalised fields (the start as
 * epoch ms, the token HMACs as kept).
 */
export function derivedSessionId(columns: readonly (readonly unknown[])[], r: number): string {
  const fields: SessionIdFields = {
    start_ms: (columns[START_TIME] as readonly number[])[r] as number,
    client_ip: (columns[CLIENT_IP] as readonly string[])[r] as string,
    mode: (columns[MODE] as readonly string[])[r] as string,
    user_email: (columns[USER_EMAIL] as readonly string[])[r] as string,
    token_hmac: (columns[TOKEN_HMAC] as readonly (string | null)[])[r] ?? null,
    virtual_token_hmac: (columns[VIRTUAL_TOKEN_HMAC] as readonly (string | null)[])[r] ?? null,
  };
  return sessionIdOf(fields);
}

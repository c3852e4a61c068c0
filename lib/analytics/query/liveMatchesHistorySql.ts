/**
 * History's keyed token digests, which the joins compare with the active rows' digests. Both sides must
 * use the same key and function (lib/archive/records' token HMAC).
 */
export const HISTORY_TOKEN_HASH_COLUMNS = {
  token: 'token_hmac',
  virtualToken: 'virtual_token_hmac',
} as const;

/**
 * A live row's join token digest in SQL: `join_token_hmac` (the token, or the virtual token less its
 * `-<port>`: lib/archive/records' `liveJoinToken`), or, for a row written before that column existed, its token
 * digest, else its virtual token digest.
 */
export const liveJoinTokenSql = (live: string) =>
  `coalesce(${live}.join_token_hmac, ${live}.token_hmac, ${live}.virtual_token_hmac)`;

/**
 * Whether live row `live` (of `active/`) and history row `history` (of `history/`) are one tunnel by
 * their tokens: lib/archive/records' `liveMatchesHistory` in SQL (history's token, or its virtual token, is the
 * live row's join token; or both name the same virtual token; or history names no token at all). The
 * caller adds the same instant (`history.start_time = live.creation_time`). Runs on Athena and DuckDB.
 */
export function liveMatchesHistorySql(live: string, history: string): string {
  const token = `${history}.${HISTORY_TOKEN_HASH_COLUMNS.token}`;
  const virtual = `${history}.${HISTORY_TOKEN_HASH_COLUMNS.virtualToken}`;
  return `(coalesce(${token}, ${virtual}) = ${liveJoinTokenSql(live)}
      OR ${virtual} = ${live}.virtual_token_hmac
      OR (${token} IS NULL AND ${virtual} IS NULL))`;
}

import type { LiveTokens } from '../records/liveJoinToken.ts';

/** The token digests of a live row (or of its stored fields); `join_token_hmac` is absent from older rows. */
export interface LiveTokenDigests {
  token_hmac: string | null;
  virtual_token_hmac: string | null;
  join_token_hmac?: string | null | undefined;
}

/**
 * A live row's join token digest: `join_token_hmac` (the token, or the virtual token less its `-<port>`:
 * `liveJoinToken`), or, for a row written before that column existed, its token digest, else its virtual
 * token digest. lib/analytics/query's `liveJoinTokenSql` is the same in SQL.
 */
export function liveJoinTokenHmac(row: LiveTokenDigests): string | null {
  return row.join_token_hmac ?? row.token_hmac ?? row.virtual_token_hmac;
}

/** A live row's digests as `liveMatchesHistory` compares them with a history row's. */
export function liveTokensOf(row: LiveTokenDigests): LiveTokens {
  return { join_token: liveJoinTokenHmac(row), virtual_token: row.virtual_token_hmac };
}

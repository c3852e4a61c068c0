/**
 * The token a live session was opened with, as history's `token_value` names it: the active list's
 * `token` when it is sent, else its `virtualToken` less a `-<port>` suffix that is the session's own
 * `port` (the documented list sends `token: null` and `virtualToken: "<token>-<port>"`). A virtual token
 * without that suffix is taken whole; a session with neither has none (null).
 *
 * For ids and comparisons only: the row keeps `token` and `virtualToken` as sent, and this value is
 * stored only as its keyed digest (`join_token_hmac` of `active/`), so it is derived where the raw
 * values are still at hand.
 */
export function liveJoinToken(
  token: string | null,
  virtualToken: string | null,
  port: number,
): string | null {
  if (token !== null && token !== '') return token;
  if (virtualToken === null || virtualToken === '') return null;
  const suffix = `-${port}`;
  if (virtualToken.length > suffix.length && virtualToken.endsWith(suffix))
    return virtualToken.slice(0, -suffix.length);
  return virtualToken;
}

/** A live session's identity in a join: its join token and its virtual token (raw, or both digests). */
export interface LiveTokens {
  join_token: string | null;
  virtual_token: string | null;
}

/** A history record's identity in a join: its token and virtual token (raw, or both digests). */
export interface HistoryTokens {
  token: string | null;
  virtual_token: string | null;
}

/**
 * Whether a live session and a history record that started at the same instant are one tunnel, by
 * their tokens: history's token (or, without one, its virtual token) is the live session's join token,
 * or both name the same virtual token; a record that names no token at all matches on the instant
 * alone. Works on raw values and on digests alike (the same key on both sides). `liveMatchesHistorySql`
 * (lib/analytics/query) is the same rule in SQL.
 */
export function liveMatchesHistory(live: LiveTokens, history: HistoryTokens): boolean {
  const historyToken = history.token ?? history.virtual_token;
  if (historyToken === null) return true;
  return (
    historyToken === live.join_token ||
    (history.virtual_token !== null && history.virtual_token === live.virtual_token)
  );
}

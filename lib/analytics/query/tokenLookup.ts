import { tokenHmac } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import { sqlString } from './sqlString.ts';

/** The archive table of the Glue database the stack makes (Athena); locally, the `tunnel_sessions` view. */
export const ATHENA_SESSIONS_TABLE = 'tunnel_archive.tunnel_sessions';

/** What the saved query shows where the digest goes: `tunnel-archiver token-hmac` prints the real one. */
export const TOKEN_DIGEST_PLACEHOLDER = 'TOKEN-DIGEST';

/**
 * The query for one token's sessions by its digest alone: neither the token nor the token key is in
 * its text, so Athena's query history and CloudTrail hold only the digest (which the archive holds too).
 */
export function tokenLookupSql(table: string, digest: string): string {
  return (
    `SELECT start_time, end_time, mode, domains, client_ip, session_id\nFROM ${table}\n` +
    `WHERE token_hmac = ${sqlString(digest)}\n   OR virtual_token_hmac = ${sqlString(digest)}\nORDER BY start_time DESC;`
  );
}

/**
 * A token's digest as the archive stores it (`tokenHmac` under the archive's token key: the value of its
 * `token_hmac` and `virtual_token_hmac` columns), and the query that finds its sessions by it. Computed on
 * the user's machine, so the raw token and the key never reach a query engine. The token is taken as
 * given but for one trailing newline (what a prompt or `echo` adds); an empty one is refused.
 */
export function tokenLookup(
  token: string,
  tokenKey: Uint8Array,
  table: string = ATHENA_SESSIONS_TABLE,
): { digest: string; sql: string } {
  const value = token.replace(/\r?\n$/, '');
  if (value === '')
    throw new ArchiverError('CONFIG_INVALID', 'no token given: type it at the prompt or pipe it on stdin');
  const digest = tokenHmac(tokenKey, value);
  return { digest, sql: tokenLookupSql(table, digest) };
}

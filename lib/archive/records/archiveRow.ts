/**
 * How raw token values are kept: `hash` (default) keeps only keyed HMAC-SHA256 digests, so sessions of
 * one token can be grouped but a guessed token cannot be tested without the key; `keep` also keeps the
 * raw values; `drop` keeps neither. The one list of policy names (config, CLI, stack import it).
 */
export const TOKEN_POLICIES = ['keep', 'hash', 'drop'] as const;
export type TokenPolicy = (typeof TOKEN_POLICIES)[number];

/**
 * One row of `history/dt=YYYY-MM-DD/*.parquet`. This column contract is public (Athena/Glue table);
 * change it only with a migration.
 */
export interface ArchiveRow {
  /** 128-bit hex id of the normalised record (see `recordIdOf`): the dedupe key. */
  record_id: string;
  /** 128-bit hex id of the session's identity fields (see `sessionIdOf`): equal across revisions. */
  session_id: string;
  start_time: Date;
  end_time: Date | null;
  user_email: string;
  /** Raw token, under policy `keep` only. */
  token_value: string | null;
  /** Raw virtual token, under policy `keep` only. */
  virtual_token_value: string | null;
  /** `tokenHmac(tokenKey, token_value)` under `keep` and `hash`; null under `drop`. */
  token_hmac: string | null;
  /** `tokenHmac(tokenKey, virtual_token_value)` under `keep` and `hash`; null under `drop`. */
  virtual_token_hmac: string | null;
  /**
   * Host names exactly as the API listed them: its order (the tunnel's own address first, custom
   * domains after) and any repeats. `record_id` hashes them as a sorted set, so order never changes ids.
   */
  domains: string[];
  mode: string;
  mode_udp: string;
  client_ip: string;
  client_address: string | null;
  client_port: number | null;
  port: number | null;
  /** JSON of the fields the seed does not name (tokens redacted by policy), or null when there are none. */
  extra_json: string | null;
  archived_at: Date;
  /** `start_time` as the API sent it, when `start_time` alone cannot give it back (see `lostInstantText`); else null. */
  start_time_text: string | null;
  /** `end_time` as the API sent it, when `end_time` alone cannot give it back; else null. */
  end_time_text: string | null;
}

/**
 * A row on its way to the encoder: an {@link ArchiveRow} whose `session_id` may still be null, when the
 * row's own columns give it (`sessionIdOf` of `start_time`, `client_ip`, `mode`, `user_email` and both
 * token HMACs: under the `keep` and `hash` policies). The encoder fills it in before a row is written
 * (`ParquetDraftWriter`), on the encoding worker when there is one, so the walk's thread does not hash it.
 */
export type DraftRow = Omit<ArchiveRow, 'session_id' | DraftInstant> & { session_id: string | null } & {
  [K in DraftInstant]: ArchiveRow[K] | (null extends ArchiveRow[K] ? number | null : number);
};

/**
 * A draft row's timestamps may be epoch milliseconds instead of `Date`s: the encoder takes milliseconds, so
 * a walk's row (`KeyedRecord.draftRow`) hands them over as it holds them, with no `Date` made and read back.
 */
type DraftInstant = 'start_time' | 'end_time' | 'archived_at';

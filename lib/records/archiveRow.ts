/** How raw token values are kept: `hash` (default) keeps only SHA-256 digests, as audit logs do. */
export type TokenPolicy = 'keep' | 'hash' | 'drop';
export const TOKEN_POLICIES = ['keep', 'hash', 'drop'] as const;

/**
 * One row of `history/dt=YYYY-MM-DD/*.parquet`. This column contract is public (Athena/Glue table);
 * change it only with a migration.
 */
export interface ArchiveRow {
  /** SHA-256 (hex) of the canonical record: the dedupe key. */
  record_id: string;
  start_time: Date;
  end_time: Date | null;
  user_email: string;
  token_value: string | null;
  virtual_token_value: string | null;
  token_sha256: string | null;
  virtual_token_sha256: string | null;
  domains: string[];
  mode: string;
  mode_udp: string;
  client_ip: string;
  client_address: string | null;
  client_port: number | null;
  port: number | null;
  /** JSON of the fields the seed does not name, or null when there are none. */
  extra_json: string | null;
  archived_at: Date;
}

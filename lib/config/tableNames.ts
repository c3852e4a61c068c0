/**
 * The SQL names of the archive's tables: Athena's Glue tables and the local DuckDB views of
 * `tunnel-archiver query` carry the same names, so one query runs in both places. A test keeps
 * these equal to the names the stack gives its Glue tables.
 */
export const TABLES = {
  /** `history/dt=YYYY-MM-DD/*.parquet`: one row per ended session. */
  history: { name: 'tunnel_sessions', prefix: 'history/' },
  /** `active/dt=YYYY-MM-DD/*.parquet`: observations of live sessions (once that dataset exists). */
  active: { name: 'tunnel_active_sessions', prefix: 'active/' },
} as const;

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

/**
 * The days a `dt` partition can have: from the earliest `start_time` a record may carry (2000-01-01)
 * to two days ahead of now (clock skew upstream). Athena's partition projection covers exactly this,
 * so no archived day ever falls outside the table.
 */
export const DT_RANGE = { first: '2000-01-01', daysAhead: 2 } as const;

/** `projection.dt.range` of the Glue tables. */
export const DT_PROJECTION_RANGE = `${DT_RANGE.first},NOW+${DT_RANGE.daysAhead}DAYS`;

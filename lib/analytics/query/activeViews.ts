import { ACTIVE_COLUMNS, type ActiveRow, HISTORY_COLUMNS } from '../../archive/index.ts';
import { HISTORY_TOKEN_HASH_COLUMNS, liveMatchesHistorySql } from './liveMatchesHistorySql.ts';

/** Glue/Athena names, shared by the stack and the local DuckDB setup (one source). */
export const ARCHIVE_DATABASE = 'tunnel_archive';
export const HISTORY_TABLE = 'tunnel_sessions';
export const ACTIVE_TABLE = 'tunnel_active_sessions';
export const NAMED_SESSIONS_VIEW = 'tunnel_sessions_named';
export const LOST_SESSIONS_VIEW = 'tunnel_sessions_lost';

export { HISTORY_TOKEN_HASH_COLUMNS };

/** The Athena type of each `active/` column: the views' columns taken from it keep its type. */
const ACTIVE_TYPE = Object.fromEntries(ACTIVE_COLUMNS.map((c) => [c.name, c.athenaType])) as Record<
  keyof ActiveRow,
  string
>;
const fromActive = (name: keyof ActiveRow, as: string = name) => ({
  name: as,
  athenaType: ACTIVE_TYPE[name],
});

/** Columns the naming view adds to every history row (null when no observation matches). */
export const NAMING_COLUMNS: readonly { name: string; athenaType: string }[] = [
  fromActive('id', 'active_id'),
  ...(['user_id', 'token_id', 'token_name', 'virtual_token_name', 'subdomain', 'customdomain'] as const).map(
    (name) => fromActive(name),
  ),
];

/** Columns of the upstream-loss view. */
export const LOST_COLUMNS: readonly { name: string; athenaType: string }[] = [
  ...NAMING_COLUMNS,
  ...(['mode', 'port', 'creation_time'] as const).map((name) => fromActive(name)),
  fromActive('observed_at', 'gone_observed_at'),
  { name: 'dt', athenaType: 'string' },
];

export interface ViewOptions {
  /** The API's history window in days (default 60). */
  windowDays?: number;
  /** Hours after a session is seen gone before its absence from history counts (ingestion lag). */
  graceHours?: number;
}

const q = (table: string) => `${ARCHIVE_DATABASE}.${table}`;

/** The history view's columns: history's own (in file order) + `dt` + the naming columns. */
export function namedSessionsColumns(): { name: string; athenaType: string }[] {
  return [...HISTORY_COLUMNS, { name: 'dt', athenaType: 'string' }, ...NAMING_COLUMNS];
}

/**
 * History rows with their names: each row is joined with the last observation of a live session that
 * was created at the same instant as the row started AND names the same token (`liveMatchesHistorySql`:
 * history's token is the live row's join token, the token or the virtual token less its `-<port>`; or
 * both name the same virtual token; digests). The API gives the two views of a session no shared id, so this is an assumption: one
 * token does not start two tunnels in the same millisecond. A history row that carries no token at all
 * (both null, or the `drop` policy) matches on the instant alone. When two observations match, the one with
 * the smallest id is taken, so every history row appears once. Runs unchanged on Athena and DuckDB.
 */
export function namedSessionsSql(): string {
  const historyCols = [...HISTORY_COLUMNS.map((c) => c.name), 'dt'].map((c) => `h.${c}`).join(', ');
  const outCols = [...HISTORY_COLUMNS.map((c) => c.name), 'dt', ...NAMING_COLUMNS.map((c) => c.name)].join(
    ', ',
  );
  return `WITH observed AS (
  SELECT id, user_id, token_id, token_name, virtual_token_name, subdomain, customdomain,
    creation_time, token_hmac, virtual_token_hmac, join_token_hmac,
    row_number() OVER (PARTITION BY id ORDER BY observed_at DESC, row_id) AS rn
  FROM ${q(ACTIVE_TABLE)}
  WHERE event <> 'gone'
),
matched AS (
  SELECT ${historyCols},
    o.id AS active_id, o.user_id, o.token_id, o.token_name, o.virtual_token_name, o.subdomain, o.customdomain,
    row_number() OVER (PARTITION BY h.record_id ORDER BY o.id) AS pick
  FROM ${q(HISTORY_TABLE)} h
  LEFT JOIN observed o
    ON o.rn = 1
    AND o.creation_time = h.start_time
    AND ${liveMatchesHistorySql('o', 'h')}
)
SELECT ${outCols}
FROM matched
WHERE pick = 1`;
}

/**
 * The upstream-loss detector: sessions whose last row is `gone`, that ended while their start was
 * still inside the window (less than window − 2 days after it, as the archiver's last sweep), at least
 * `graceHours` ago (history's ingestion lag and the next archiver run), that started after the oldest
 * archived history row, and that no history row matches (same instant, `liveMatchesHistorySql`).
 * Each one is a session the API showed as live but never returned in history.
 */
export function lostSessionsSql(opts: ViewOptions = {}): string {
  const windowDays = opts.windowDays ?? 60;
  const graceHours = opts.graceHours ?? 24;
  const { token, virtualToken } = HISTORY_TOKEN_HASH_COLUMNS;
  return `WITH last_row AS (
  SELECT id, event, user_id, token_id, token_name, virtual_token_name, subdomain, customdomain, mode, port,
    creation_time, observed_at, token_hmac, virtual_token_hmac, join_token_hmac, dt,
    row_number() OVER (PARTITION BY id ORDER BY observed_at DESC, row_id) AS rn
  FROM ${q(ACTIVE_TABLE)}
),
ended AS (
  SELECT * FROM last_row
  WHERE rn = 1
    AND event = 'gone'
    AND observed_at < creation_time + INTERVAL '${windowDays - 2}' DAY
    AND observed_at < current_timestamp - INTERVAL '${graceHours}' HOUR
    AND creation_time >= (SELECT min(start_time) FROM ${q(HISTORY_TABLE)})
),
history_keys AS (
  SELECT DISTINCT start_time, ${token}, ${virtualToken}
  FROM ${q(HISTORY_TABLE)}
)
SELECT e.id AS active_id, e.user_id, e.token_id, e.token_name, e.virtual_token_name, e.subdomain,
  e.customdomain, e.mode, e.port, e.creation_time, e.observed_at AS gone_observed_at, e.dt
FROM ended e
LEFT JOIN history_keys k
  ON k.start_time = e.creation_time
  AND ${liveMatchesHistorySql('e', 'k')}
WHERE k.start_time IS NULL`;
}

/** A view as both catalogs create it: its name, what it shows, its SQL and its columns. */
export interface ViewSpec {
  name: string;
  description: string;
  sql: string;
  /** `prestoType` where the view's Presto type is not the one its Athena type maps to. */
  columns: readonly { name: string; athenaType: string; prestoType?: string }[];
}

/** The two views over history and `active/`, as Athena (the stack) and DuckDB (local) both create them. */
export function activeViews(opts: ViewOptions = {}): { named: ViewSpec; lost: ViewSpec } {
  return {
    named: {
      name: NAMED_SESSIONS_VIEW,
      description:
        'History rows with the names of the live session they match (same start instant, same token or virtual token)',
      sql: namedSessionsSql(),
      columns: namedSessionsColumns(),
    },
    lost: {
      name: LOST_SESSIONS_VIEW,
      description:
        'Sessions observed live that ended inside the window but never appeared in history (upstream loss)',
      sql: lostSessionsSql(opts),
      columns: LOST_COLUMNS,
    },
  };
}

/** What `verify` reports: how many sessions the loss detector lists. */
export const COUNT_LOST_SESSIONS_SQL = `SELECT count(*) AS lost FROM ${q(LOST_SESSIONS_VIEW)}`;

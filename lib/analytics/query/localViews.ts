import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ACTIVE_COLUMNS, HISTORY_COLUMNS } from '../../archive/index.ts';
import { duckdbType } from '../sql/duckdbSpelling.ts';
import {
  ACTIVE_TABLE,
  ARCHIVE_DATABASE,
  activeViews,
  HISTORY_TABLE,
  type ViewOptions,
} from './activeViews.ts';
import { sqlString } from './sqlString.ts';

export { COUNT_LOST_SESSIONS_SQL, LOST_SESSIONS_VIEW, NAMED_SESSIONS_VIEW } from './activeViews.ts';

export interface LocalViewsOptions extends ViewOptions {
  /** Whether `<root>/history/` holds Parquet files (DuckDB's read_parquet fails on an empty glob). */
  hasHistory?: boolean;
  /** Whether `<root>/active/` holds Parquet files. */
  hasActive?: boolean;
}

/**
 * DuckDB statements that make a local archive look like the Athena catalog: schema `tunnel_archive`
 * with `tunnel_sessions` and `tunnel_active_sessions` over the Hive-partitioned Parquet (`dt` read as
 * text, as in Glue), then the two views with the very SQL the stack deploys to Athena. A dataset with
 * no files yet becomes an empty table of the right columns, so the views still run.
 */
export function localViewStatements(archiveRoot: string, opts: LocalViewsOptions = {}): string[] {
  const root = archiveRoot.replace(/\/+$/, '');
  const table = (name: string, dir: string, present: boolean) => {
    const read = `read_parquet(${sqlString(`${root}/${dir}/*/*.parquet`)}, hive_partitioning = true, hive_types = {'dt': VARCHAR}, union_by_name = true)`;
    return present
      ? `CREATE OR REPLACE VIEW ${ARCHIVE_DATABASE}.${name} AS SELECT * FROM ${read}`
      : `CREATE OR REPLACE TABLE ${ARCHIVE_DATABASE}.${name} AS SELECT * FROM ${EMPTY[name]} WHERE false`;
  };
  return [
    `CREATE SCHEMA IF NOT EXISTS ${ARCHIVE_DATABASE}`,
    table(HISTORY_TABLE, 'history', opts.hasHistory ?? true),
    table(ACTIVE_TABLE, 'active', opts.hasActive ?? true),
    ...Object.values(activeViews(opts)).map(
      (view) => `CREATE OR REPLACE VIEW ${ARCHIVE_DATABASE}.${view.name} AS ${view.sql}`,
    ),
  ];
}

/** A typed, empty relation with the Glue columns of a dataset plus `dt` (for a dataset without files). */
function emptyRelation(columns: readonly { name: string; athenaType: string }[]): string {
  const cols = [...columns, { name: 'dt', athenaType: 'string' }]
    .map((c) => `NULL::${duckdbType(c.athenaType)} AS ${c.name}`)
    .join(', ');
  return `(SELECT ${cols})`;
}

const EMPTY: Record<string, string> = {
  [HISTORY_TABLE]: emptyRelation(HISTORY_COLUMNS),
  [ACTIVE_TABLE]: emptyRelation(ACTIVE_COLUMNS),
};

/** An empty table of a dataset's columns, unqualified (a rule test's stand-in for a dataset without rows). */
export function emptyTableSql(name: typeof HISTORY_TABLE | typeof ACTIVE_TABLE): string {
  return `CREATE OR REPLACE TABLE ${name} AS SELECT * FROM ${EMPTY[name]} WHERE false`;
}

/**
 * `localViewStatements` for a local archive folder, finding out itself which datasets hold files yet
 * (what the CLI's `query` command runs before the user's SQL).
 */
export async function localViewSetup(archiveRoot: string, opts: ViewOptions = {}): Promise<string[]> {
  const hasFiles = async (dir: string): Promise<boolean> => {
    const partitions = await readdir(join(archiveRoot, dir)).catch(() => [] as string[]);
    for (const p of partitions) {
      const files = await readdir(join(archiveRoot, dir, p)).catch(() => [] as string[]);
      if (files.some((f) => f.endsWith('.parquet'))) return true;
    }
    return false;
  };
  const [hasHistory, hasActive] = await Promise.all([hasFiles('history'), hasFiles('active')]);
  return localViewStatements(archiveRoot, { ...opts, hasHistory, hasActive });
}

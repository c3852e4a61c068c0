import {
  ACTIVE_TABLE,
  ARCHIVE_DATABASE,
  HISTORY_TABLE,
  LOST_SESSIONS_VIEW,
  NAMED_SESSIONS_VIEW,
} from '../query/activeViews.ts';
import { localViewSetup } from '../query/localViews.ts';

/**
 * DuckDB statements that give a local archive folder the Athena catalog rules read: schema
 * `tunnel_archive` with the tables and views the stack deploys, and the same names unqualified (in
 * Athena the rules run with `tunnel_archive` as their database).
 */
export async function localCatalog(dir: string): Promise<string[]> {
  const names = [HISTORY_TABLE, ACTIVE_TABLE, NAMED_SESSIONS_VIEW, LOST_SESSIONS_VIEW];
  return [
    ...(await localViewSetup(dir)),
    ...names.map((n) => `CREATE VIEW ${n} AS SELECT * FROM ${ARCHIVE_DATABASE}.${n}`),
  ];
}

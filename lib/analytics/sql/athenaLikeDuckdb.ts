import type { DuckDBConnection } from '@duckdb/node-api';
import { ATHENA_MACROS, DUCKDB_SESSION } from './dialect.ts';

/** An in-memory DuckDB that answers Athena's SQL as Athena does, and its closing. */
export interface AthenaLikeDuckdb {
  connection: DuckDBConnection;
  close(): void;
}

/**
 * DuckDB in memory with Athena's session settings (UTC) and the macros of lib/analytics/sql/dialect.ts run
 * first: where saved queries, rules and the OCSF mappings run locally. DuckDB is loaded only here,
 * on first use.
 */
export async function athenaLikeDuckdb(): Promise<AthenaLikeDuckdb> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const s of [...DUCKDB_SESSION, ...ATHENA_MACROS]) await connection.run(s);
  return {
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

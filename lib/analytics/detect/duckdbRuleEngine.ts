import { ArchiverError } from '../../foundation/index.ts';
import { athenaLikeDuckdb } from '../sql/athenaLikeDuckdb.ts';
import { OLDEST_DAY_SQL, projectRule, type RuleEngine } from './ruleEngine.ts';

export interface DuckDbRuleEngine extends RuleEngine {
  run(sql: string): Promise<void>;
  /** Rows of any statement as JSON values (tests, tools). */
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

/**
 * Rules on DuckDB in memory: the Athena shims first, then `setup` (the local archive's catalog, or a
 * yml test's table). DuckDB is loaded only here, when rules run.
 */
export async function duckdbRuleEngine(setup: readonly string[]): Promise<DuckDbRuleEngine> {
  const duckdb = await athenaLikeDuckdb();
  const { connection } = duckdb;
  for (const s of setup) await connection.run(s);
  return {
    run: async (sql) => {
      await connection.run(sql);
    },
    query: async (sql) =>
      (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[],
    async oldestDay() {
      const rows = (await connection.runAndReadAll(OLDEST_DAY_SQL)).getRowObjectsJson();
      const oldest = rows[0]?.oldest;
      return typeof oldest === 'string' ? oldest : undefined;
    },
    async runRule(sql) {
      try {
        const reader = await connection.runAndReadAll(
          // Athena's array_join skips nulls (a live session has no record id); DuckDB's list keeps them.
          projectRule(sql, {
            epochMs: (c) => `epoch_ms(${c})`,
            ids: (c) => `list_sort(list_filter(${c}, x -> x IS NOT NULL))`,
          }),
        );
        return reader.getRowObjectsJson() as Record<string, unknown>[];
      } catch (cause) {
        throw new ArchiverError(
          'QUERY_FAILED',
          `a rule's SQL failed in DuckDB: ${(cause as Error).message}`,
          { cause },
        );
      }
    },
    close: duckdb.close,
  };
}

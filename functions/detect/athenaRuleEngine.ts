import {
  type AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { athenaRuleSql, OLDEST_DAY_SQL, type RuleEngine } from '../../lib/analytics/detect/ruleEngine.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

export interface AthenaEngineOptions {
  workGroup: string;
  database: string;
  /** Waits between polls (injected: tests drive it without real time). */
  sleep: (ms: number) => Promise<void>;
  pollMs?: number;
  /** Gives up on a query after this long (the Lambda's budget per rule). */
  maxWaitMs?: number;
}

/**
 * Rules on Athena: start the query in the workgroup (its result location and encryption are the
 * workgroup's), poll until it ends, read every page of results. Times come back as epoch ms and the
 * ids as one comma-joined string, so no Athena text rendering of timestamps or arrays is parsed.
 */
export function athenaRuleEngine(client: Pick<AthenaClient, 'send'>, opts: AthenaEngineOptions): RuleEngine {
  const pollMs = opts.pollMs ?? 1000;
  const maxWaitMs = opts.maxWaitMs ?? 120_000;
  const run = async (query: string): Promise<Record<string, unknown>[]> => {
    const started = await client.send(
      new StartQueryExecutionCommand({
        QueryString: query,
        WorkGroup: opts.workGroup,
        QueryExecutionContext: { Database: opts.database },
      }),
    );
    const id = started.QueryExecutionId;
    if (id === undefined) throw new ArchiverError('QUERY_FAILED', 'Athena returned no query execution id');
    for (let waited = 0; ; waited += pollMs) {
      const { QueryExecution } = await client.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
      const state = QueryExecution?.Status?.State;
      if (state === 'SUCCEEDED') break;
      if (state === 'FAILED' || state === 'CANCELLED')
        throw new ArchiverError(
          'QUERY_FAILED',
          `Athena query ${id} ${state}: ${QueryExecution?.Status?.StateChangeReason ?? ''}`,
        );
      if (waited >= maxWaitMs)
        throw new ArchiverError('DEADLINE', `Athena query ${id} still ${state} after ${maxWaitMs} ms`);
      await opts.sleep(pollMs);
    }
    const rows: Record<string, unknown>[] = [];
    let columns: string[] | undefined;
    let next: string | undefined;
    do {
      const page = await client.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: next }));
      const values = (page.ResultSet?.Rows ?? []).map((r) =>
        (r.Data ?? []).map((d) => d.VarCharValue ?? null),
      );
      if (columns === undefined) columns = (values.shift() ?? []).map((c) => c ?? '');
      for (const v of values) rows.push(Object.fromEntries(columns.map((c, i) => [c, v[i] ?? null])));
      next = page.NextToken;
    } while (next !== undefined);
    return rows;
  };
  return {
    runRule: (sql) => run(athenaRuleSql(sql)),
    async oldestDay() {
      const oldest = (await run(OLDEST_DAY_SQL))[0]?.oldest;
      return typeof oldest === 'string' && oldest !== '' ? oldest : undefined;
    },
  };
}

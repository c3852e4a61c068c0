import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Logger, parseStateUrl } from '../../foundation/index.ts';
import { createDynamoStateStore } from './dynamoStateStore.ts';
import {
  type EnsuredStateTable,
  type EnsureStateTableOptions,
  ensureStateTable,
} from './ensureStateTable.ts';
import type { StateStore } from './statePorts.ts';

export interface StateStoreDeps {
  dynamoClient?: DynamoDBClient;
}

/**
 * Builds the StateStore named by a `dynamodb://table` URL. Without an injected client it builds one
 * from the environment (the SDK honours `AWS_ENDPOINT_URL_DYNAMODB` for local servers) and closes it
 * with the store.
 */
export function stateStoreFromUrl(url: string, deps: StateStoreDeps = {}): StateStore {
  const { table } = parseStateUrl(url);
  if (deps.dynamoClient !== undefined) return createDynamoStateStore({ client: deps.dynamoClient, table });
  const client = new DynamoDBClient({});
  return {
    ...createDynamoStateStore({ client, table }),
    async close() {
      client.destroy();
    },
  };
}

/**
 * `ensureStateTable` for the table a `dynamodb://table` URL names (a client built as `stateStoreFromUrl`
 * builds one, unless injected), saying what it did in the log: the table it created, and point-in-time
 * recovery it could not turn on (with the command that does).
 */
export async function ensureStateTableAt(
  url: string,
  logger: Logger,
  options: EnsureStateTableOptions & StateStoreDeps = {},
): Promise<EnsuredStateTable> {
  const { table } = parseStateUrl(url);
  const client = options.dynamoClient ?? new DynamoDBClient({});
  try {
    const result = await ensureStateTable(client, table, options);
    if (result.created) logger.info('state table created', { table });
    if (result.pitrNotEnabled !== undefined) logger.warn(result.pitrNotEnabled, { table });
    if (result.unchecked) logger.debug('state table not described (DescribeTable denied)', { table });
    return result;
  } finally {
    if (options.dynamoClient === undefined) client.destroy();
  }
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ArchiverError } from '../errors/archiverError.ts';
import { createDynamoStateStore } from './dynamoStateStore.ts';
import type { StateStore } from './stateStore.ts';

export interface StateStoreDeps {
  dynamoClient?: DynamoDBClient;
}

/** DynamoDB's own table-name rule. */
const TABLE_RE = /^[a-zA-Z0-9_.-]{3,255}$/;

/**
 * Builds the StateStore named by a `dynamodb://table` URL. Without an injected client it builds one
 * from the environment (the SDK honours `AWS_ENDPOINT_URL_DYNAMODB` for local servers) and closes it
 * with the store.
 */
export function stateStoreFromUrl(url: string, deps: StateStoreDeps = {}): StateStore {
  const match = /^dynamodb:\/\/([^/?#]+)\/?$/.exec(url.trim());
  const table = match?.[1];
  if (table === undefined || !TABLE_RE.test(table)) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `the state store must be dynamodb://TABLE (3-255 of a-z A-Z 0-9 _ . -), got '${url}'`,
    );
  }
  if (deps.dynamoClient !== undefined) return createDynamoStateStore({ client: deps.dynamoClient, table });
  const client = new DynamoDBClient({});
  return {
    ...createDynamoStateStore({ client, table }),
    async close() {
      client.destroy();
    },
  };
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseStateUrl } from '../url/storeUrl.ts';
import { createDynamoStateStore } from './dynamoStateStore.ts';
import type { StateStore } from './stateStore.ts';

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

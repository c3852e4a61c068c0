import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureStateTable } from '../lib/archive/state/dynamoStateStore.ts';
import { startLocalDynamo } from './localDynamo.ts';

export interface DynaliteHandle {
  endpoint: string;
  client: DynamoDBClient;
  table: string;
  close(): Promise<void>;
}

/** A DynamoDB client with fake credentials for a local server (dynalite accepts any). */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Starts an in-memory dynalite on 127.0.0.1 (random port) with the state table created, through the
 * same `startLocalDynamo` local mode uses.
 */
export async function startDynalite(): Promise<DynaliteHandle> {
  const dynamo = await startLocalDynamo();
  const client = localDynamoClient(dynamo.endpoint);
  const table = `state-${randomUUID().slice(0, 8)}`;
  try {
    await ensureStateTable(client, table);
  } catch (error) {
    client.destroy();
    await dynamo.close();
    throw error;
  }
  return {
    endpoint: dynamo.endpoint,
    client,
    table,
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
}

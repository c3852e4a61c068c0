import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { ArchiverError } from '../errors/archiverError.ts';

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | undefined)?.name;
}

/**
 * Creates the state table (on-demand, `pk` string hash key) when it is missing and waits until it is
 * ACTIVE. Local mode and tests call it; on AWS the stack owns the table and this is not needed.
 */
export async function ensureStateTable(client: DynamoDBClient, table: string): Promise<void> {
  try {
    try {
      const out = await client.send(new DescribeTableCommand({ TableName: table }));
      if (out.Table?.TableStatus === 'ACTIVE') return;
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
      try {
        await client.send(
          new CreateTableCommand({
            TableName: table,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          }),
        );
      } catch (createError) {
        // Another process created it between our describe and create: just wait for it.
        if (errorName(createError) !== 'ResourceInUseException') throw createError;
      }
    }
    await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: table });
  } catch (error) {
    throw new ArchiverError(
      'STORE_FAILED',
      `cannot create the state table '${table}': ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

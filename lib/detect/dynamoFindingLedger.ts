import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ArchiverError } from '../errors/archiverError.ts';
import type { FindingLedger } from './findingLedger.ts';

/** Key prefix of finding claims in the state table (beside `DAY#`, `PART#`, ...). */
export const FINDING_PK_PREFIX = 'FINDING#';

/**
 * The ledger on the state table: one item per finding id, written with `attribute_not_exists(pk)`,
 * so of two concurrent evaluations exactly one gets the claim (DynamoDB serializes conditional writes
 * on one item). Each claim names its `owner` (the evaluation): a write whose response was lost, retried
 * by the SDK and answered ConditionalCheckFailed, is read back and still counts as ours. `expiresAt` (epoch seconds) lets a TTL on the table remove old claims.
 */
export function dynamoFindingLedger(client: DynamoDBClient, table: string, owner: string): FindingLedger {
  return {
    async claim(findingId, dedupeKey, expiresAt) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: `${FINDING_PK_PREFIX}${findingId}` },
              dedupeKey: { S: dedupeKey },
              owner: { S: owner },
              expiresAt: { N: String(Math.ceil(expiresAt.getTime() / 1000)) },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
          const held = await client.send(
            new GetItemCommand({
              TableName: table,
              Key: { pk: { S: `${FINDING_PK_PREFIX}${findingId}` } },
              ConsistentRead: true,
            }),
          );
          return held.Item?.owner?.S === owner;
        }
        throw new ArchiverError(
          'STORE_FAILED',
          `claiming finding ${findingId} failed: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    },
  };
}

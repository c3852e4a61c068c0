import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ArchiverError } from '../errors/archiverError.ts';
import { versionConflict } from './versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

export type Item = Record<string, AttributeValue>;

export interface DynamoItemsOptions {
  client: DynamoDBClient;
  table: string;
  /** Items evaluated per Scan page (DynamoDB's `Limit`). Default: DynamoDB's own 1 MB pages. */
  scanLimit?: number;
}

export function isConditionalFailure(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/**
 * The raw item access of one DynamoDB table keyed by `pk` only, shared by the versioned-item primitive
 * and the two concerns whose items carry more than JSON (the lease's fields, the live state's bytes).
 * Uses only PutItem/UpdateItem/GetItem/DeleteItem/Scan, so it also runs on dynalite (local mode, tests).
 */
export function dynamoItems(opts: DynamoItemsOptions) {
  const { client, table } = opts;
  const failed = (what: string, cause: unknown): ArchiverError =>
    cause instanceof ArchiverError
      ? cause
      : new ArchiverError(
          'STORE_FAILED',
          `${what} in DynamoDB table '${table}': ${(cause as Error)?.message}`,
          {
            cause,
          },
        );

  const getItem = async (pk: string): Promise<Item | undefined> => {
    try {
      const out = await client.send(
        new GetItemCommand({ TableName: table, Key: marshall({ pk }), ConsistentRead: true }),
      );
      return out.Item;
    } catch (error) {
      throw failed(`cannot read '${pk}'`, error);
    }
  };

  /** Puts `body` as `pk` at `version + 1` if the stored version is still `version` (0 = absent). */
  const conditionalPut = async (pk: string, version: number, body: Item): Promise<void> => {
    try {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...marshall({ pk, version: version + 1 }), ...body },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : '#version = :expected',
          ...(version === 0
            ? {}
            : {
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: marshall({ ':expected': version }),
              }),
        }),
      );
    } catch (error) {
      if (isConditionalFailure(error)) throw versionConflict(pk, version, error);
      throw failed(`cannot write '${pk}'`, error);
    }
  };

  /** One Scan page of the items under `prefix`, from `start`. */
  const scanPage = (prefix: string, start: Item | undefined): Promise<ScanCommandOutput> =>
    client
      .send(
        new ScanCommand({
          TableName: table,
          ConsistentRead: true,
          FilterExpression: 'begins_with(pk, :prefix)',
          ExpressionAttributeValues: marshall({ ':prefix': prefix }),
          ...(opts.scanLimit === undefined ? {} : { Limit: opts.scanLimit }),
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      )
      .catch((error: unknown) => {
        throw failed(`cannot scan '${prefix}*'`, error);
      });

  const scanPrefix = async (prefix: string): Promise<Item[]> => {
    const out: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await scanPage(prefix, start);
      out.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  };

  const deleteItem = async (pk: string): Promise<void> => {
    try {
      await client.send(new DeleteItemCommand({ TableName: table, Key: marshall({ pk }) }));
    } catch (error) {
      throw failed(`cannot delete '${pk}'`, error);
    }
  };

  return { client, table, failed, getItem, conditionalPut, scanPrefix, deleteItem };
}

/** A stored item's plain values (`{ pk, version, data }`, or the lease's fields). */
export function plainItem(item: Item): Record<string, unknown> {
  return unmarshall(item);
}

function versioned(item: Item): VersionedItem {
  const v = plainItem(item);
  return {
    pk: typeof v.pk === 'string' ? v.pk : '',
    version: typeof v.version === 'number' ? v.version : 0,
    data: typeof v.data === 'string' ? v.data : 'null',
  };
}

/** The versioned-item primitive on DynamoDB: `data` (JSON string) and `version` attributes under `pk`. */
export function dynamoVersionedItems(opts: DynamoItemsOptions): VersionedItems {
  const items = dynamoItems(opts);
  return {
    where: `in table '${opts.table}'`,
    get: async (pk) => {
      const item = await items.getItem(pk);
      return item === undefined ? undefined : versioned(item);
    },
    put: (pk, version, data) => items.conditionalPut(pk, version, marshall({ data })),
    delete: (pk) => items.deleteItem(pk),
    query: async (prefix) => (await items.scanPrefix(prefix)).map(versioned),
  };
}

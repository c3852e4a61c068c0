import {
  type AttributeValue,
  BatchGetItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ArchiverError } from '../../foundation/index.ts';
import { versionConflict } from './versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

type Item = Record<string, AttributeValue>;

/** Keys in one BatchGetItem (DynamoDB's limit). */
const BATCH_GET_KEYS = 100;
/** Answers a batch may take to get every key (unprocessed keys are asked for again, backing off). */
const BATCH_GET_ATTEMPTS = 6;

export interface DynamoItemsOptions {
  client: DynamoDBClient;
  table: string;
  /** Items evaluated per Scan page (DynamoDB's `Limit`). Default: DynamoDB's own 1 MB pages. */
  scanLimit?: number;
}

function isConditionalFailure(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/**
 * A stored item as the primitive sees it. Items written before the primitive have no `data` attribute
 * (the lease's `owner`/`fence`/`expiresAt`, the live state's `dataGz` or `chunks`, a chunk's `part`):
 * their plain attributes are read as the `data` JSON and their binary attribute as the `bytes`, with
 * version 0 when they have none, so the concerns read them, and take them over, like their own.
 */
function versioned(item: Item): VersionedItem {
  const { pk, version, data, ...rest } = unmarshall(item);
  const attrs = Object.entries(rest);
  const binary = attrs.find(([, v]) => v instanceof Uint8Array)?.[1] as Uint8Array | undefined;
  const plain = Object.fromEntries(attrs.filter(([, v]) => !(v instanceof Uint8Array)));
  return {
    pk: typeof pk === 'string' ? pk : '',
    version: typeof version === 'number' ? version : 0,
    data: typeof data === 'string' ? data : JSON.stringify(plain),
    ...(binary === undefined ? {} : { bytes: binary }),
  };
}

/**
 * The versioned-item primitive on one DynamoDB table keyed by `pk` only: a `version` number, the `data`
 * JSON string and, when given, the `bytes` binary attribute. Every put is a PutItem conditioned on the
 * version read (`attribute_not_exists(version)` for 0). Uses only PutItem/GetItem/BatchGetItem/DeleteItem/
 * Scan, so it also runs on dynalite (the tests' DynamoDB stand-in).
 */
export function dynamoVersionedItems(opts: DynamoItemsOptions): VersionedItems {
  const { client, table } = opts;
  const failed = (what: string, cause: unknown): ArchiverError =>
    (cause as { name?: string } | undefined)?.name === 'ResourceNotFoundException'
      ? // No retry brings a missing table back: say who creates it.
        new ArchiverError(
          'STORE_FAILED',
          `${what}: the DynamoDB state table '${table}' does not exist (\`tunnel-archiver run\` creates it on first use; the stack's is its StateTableName output)`,
          { cause, retryable: false },
        )
      : new ArchiverError(
          'STORE_FAILED',
          `${what} in DynamoDB table '${table}': ${(cause as Error)?.message}`,
          {
            cause,
          },
        );

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

  return {
    where: `in table '${table}'`,
    get: async (pk) => {
      try {
        const out = await client.send(
          new GetItemCommand({ TableName: table, Key: marshall({ pk }), ConsistentRead: true }),
        );
        return out.Item === undefined ? undefined : versioned(out.Item);
      } catch (error) {
        throw failed(`cannot read '${pk}'`, error);
      }
    },
    getMany: async (pks) => {
      const out: VersionedItem[] = [];
      const unique = [...new Set(pks)];
      for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
        let keys: Item[] = unique.slice(i, i + BATCH_GET_KEYS).map((pk) => marshall({ pk }));
        // Keys DynamoDB did not get to (throttling, the 16 MB answer limit) are asked for again.
        for (let attempt = 1; keys.length > 0; attempt++) {
          if (attempt > BATCH_GET_ATTEMPTS)
            throw failed(
              `cannot read ${keys.length} items`,
              new Error(`still unprocessed after ${BATCH_GET_ATTEMPTS} answers`),
            );
          if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
          try {
            const answer = await client.send(
              new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
            );
            out.push(...(answer.Responses?.[table] ?? []).map(versioned));
            keys = answer.UnprocessedKeys?.[table]?.Keys ?? [];
          } catch (error) {
            throw failed(`cannot read ${keys.length} items`, error);
          }
        }
      }
      return out;
    },
    put: async (pk, version, data, bytes) => {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              ...marshall({ pk, version: version + 1, data }),
              ...(bytes ? { bytes: { B: bytes } } : {}),
            },
            ConditionExpression: version === 0 ? 'attribute_not_exists(#version)' : '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ...(version === 0 ? {} : { ExpressionAttributeValues: marshall({ ':expected': version }) }),
          }),
        );
      } catch (error) {
        if (isConditionalFailure(error)) throw versionConflict(pk, version, error);
        throw failed(`cannot write '${pk}'`, error);
      }
    },
    delete: async (pk) => {
      try {
        await client.send(new DeleteItemCommand({ TableName: table, Key: marshall({ pk }) }));
      } catch (error) {
        throw failed(`cannot delete '${pk}'`, error);
      }
    },
    query: async (prefix) => {
      const out: VersionedItem[] = [];
      let start: Item | undefined;
      do {
        const page = await scanPage(prefix, start);
        out.push(...(page.Items ?? []).map(versioned));
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      return out;
    },
  };
}

import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type ScanCommandOutput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type * as z from 'zod';
import type { Day } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import {
  type ChunkRef,
  chunkRefAttribute,
  chunkRefOf,
  chunksLost,
  deleteChunks,
  readChunks,
  writeChunks,
} from './activeChunks.ts';
import { decodeActiveData, encodeActiveData } from './activeStateItem.ts';
import {
  activeStateSchema,
  archiveMetaSchema,
  dayStateSchema,
  partitionManifestSchema,
} from './stateSchemas.ts';
import type { ActiveState, Dataset, Lease, StateStore } from './stateStore.ts';

export { ensureStateTable } from './ensureStateTable.ts';

export interface DynamoStateStoreOptions {
  client: DynamoDBClient;
  table: string;
  /** Items evaluated per Scan page (DynamoDB's `Limit`). Default: DynamoDB's own 1 MB pages. */
  scanLimit?: number;
}

type Item = Record<string, AttributeValue>;

const LEASE_PK = 'LEASE';
const META_PK = 'META';
const DAY_PREFIX = 'DAY#';
const PART_PREFIX = 'PART#';
const ACTIVE_PK = 'ACTIVE';
/** Compressed live-session state kept inline in the `ACTIVE` item; more goes to chunk items. */
const MAX_COMPRESSED_ITEM_BYTES = 390_000;

/** `PART#<dt>` for history (the key older releases wrote), `PART#active#<dt>` for the active snapshots. */
function partitionKey(dt: Day, dataset: Dataset): string {
  return dataset === 'history' ? `${PART_PREFIX}${dt}` : `${PART_PREFIX}${dataset}#${dt}`;
}

function isConditionalFailure(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/** A stored item as plain values (`{ pk, version, data }`, or the lease's fields). */
function plain(item: Item): Record<string, unknown> {
  return unmarshall(item);
}

function num(item: Item, name: string): number | undefined {
  const n = plain(item)[name];
  return typeof n === 'number' ? n : undefined;
}

function str(item: Item, name: string): string | undefined {
  const v = plain(item)[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * StateStore on one DynamoDB table keyed by `pk` only: `LEASE`, `META`, `DAY#<day>`, `PART#<dt>`, `ACTIVE`
 * (live-session observations, stored gzip-compressed in `dataGz`, or in `ACTIVE#…` chunk items when big).
 * Entities are a `data` JSON attribute plus a numeric `version`; every write is a conditional put, so
 * two runs that both think they hold the lease cannot both commit (the loser gets `CONFLICT`).
 * Uses only PutItem/UpdateItem/GetItem/DeleteItem/Scan so it also runs on dynalite (local mode, tests).
 */
export function createDynamoStateStore(opts: DynamoStateStoreOptions): StateStore {
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

  const decode = <T>(pk: string, item: Item, schema: z.ZodType<T>): T => {
    let data: unknown;
    try {
      data =
        item.dataGz?.B === undefined
          ? JSON.parse(str(item, 'data') ?? 'null')
          : decodeActiveData(item.dataGz.B);
    } catch (cause) {
      throw new ArchiverError('INTERNAL', `state item '${pk}' in table '${table}' holds invalid JSON`, {
        cause,
      });
    }
    const parsed = schema.safeParse({ ...(data as object), version: num(item, 'version') });
    if (!parsed.success) {
      throw new ArchiverError('INTERNAL', `state item '${pk}' in table '${table}' is malformed`, {
        cause: parsed.error,
      });
    }
    return parsed.data;
  };

  const getVersioned = async <T>(pk: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const item = await getItem(pk);
    return item === undefined ? undefined : decode(pk, item, schema);
  };

  /** Puts `body` as `pk` at `version + 1` if the stored version is still `version` (0 = absent). */
  const conditionalPut = async (pk: string, version: number, body: Item): Promise<void> => {
    const expected = version === 0 ? {} : marshall({ ':expected': version });
    try {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...marshall({ pk, version: version + 1 }), ...body },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : '#version = :expected',
          ...(version === 0
            ? {}
            : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: expected }),
        }),
      );
    } catch (error) {
      if (isConditionalFailure(error)) {
        throw new ArchiverError('CONFLICT', `state item '${pk}' changed since version ${version} was read`, {
          cause: error,
          details: { pk, expectedVersion: version },
        });
      }
      throw failed(`cannot write '${pk}'`, error);
    }
  };

  /** Stores `entity` as `version + 1` if the stored version is still `entity.version` (0 = absent). */
  const putVersioned = async <T extends { version: number }>(pk: string, entity: T): Promise<T> => {
    const { version, ...data } = entity;
    await conditionalPut(pk, version, marshall({ data: JSON.stringify(data) }));
    return { ...entity, version: version + 1 };
  };

  /**
   * The live-session state, gzip-compressed: inline in the `ACTIVE` item while it fits, else in chunk
   * items (`ACTIVE#<version>#<nonce>#<i>`, written first under a name no other writer uses) that the
   * `ACTIVE` item then names, by the same conditional write as every other item. So thousands of live
   * sessions never hit DynamoDB's 400 KB item limit. The chunks of the state it replaced are deleted
   * after; a write whose answer was lost is settled by re-reading which chunks the item names.
   */
  const putActiveState = async (state: ActiveState): Promise<ActiveState> => {
    const { version, ...data } = state;
    const bytes = encodeActiveData(data);
    const before = await getItem(ACTIVE_PK);
    const stored = before === undefined ? 0 : (num(before, 'version') ?? 0);
    if (stored !== version) {
      throw new ArchiverError(
        'CONFLICT',
        `state item '${ACTIVE_PK}' changed since version ${version} was read`,
        {
          details: { pk: ACTIVE_PK, expectedVersion: version },
        },
      );
    }
    const replaced = chunkRefOf(before);
    let mine: ChunkRef | undefined;
    if (bytes.byteLength <= MAX_COMPRESSED_ITEM_BYTES) {
      await conditionalPut(ACTIVE_PK, version, { dataGz: { B: bytes } });
    } else {
      try {
        mine = await writeChunks(client, table, version + 1, bytes);
      } catch (error) {
        throw failed(`cannot write the chunks of '${ACTIVE_PK}'`, error);
      }
      try {
        await conditionalPut(ACTIVE_PK, version, chunkRefAttribute(mine));
      } catch (error) {
        // Applied, but the answer was lost (the SDK's retry then fails its own condition)?
        const now = await getItem(ACTIVE_PK).catch(() => undefined);
        if (chunkRefOf(now)?.prefix !== mine.prefix) {
          await deleteChunks(client, table, mine);
          throw error;
        }
      }
    }
    if (replaced !== undefined) await deleteChunks(client, table, replaced);
    return { ...state, version: version + 1 };
  };

  const getActiveState = async (): Promise<ActiveState | undefined> => {
    for (let attempt = 1; ; attempt++) {
      const item = await getItem(ACTIVE_PK);
      if (item === undefined) return undefined;
      const ref = chunkRefOf(item);
      if (ref === undefined) return decode(ACTIVE_PK, item, activeStateSchema);
      let bytes: Uint8Array | undefined;
      try {
        bytes = await readChunks(client, table, ref);
      } catch (error) {
        throw failed(`cannot read the chunks of '${ACTIVE_PK}'`, error);
      }
      if (bytes !== undefined) return decode(ACTIVE_PK, { ...item, dataGz: { B: bytes } }, activeStateSchema);
      // A newer state replaced (and deleted) these chunks between the two reads: read the item again.
      if (attempt >= 3) throw chunksLost(ACTIVE_PK, table, ref);
    }
  };

  const scanPrefix = async <T>(prefix: string, schema: z.ZodType<T>): Promise<T[]> => {
    const out: T[] = [];
    let start: Item | undefined;
    do {
      let page: ScanCommandOutput;
      try {
        page = await client.send(
          new ScanCommand({
            TableName: table,
            ConsistentRead: true,
            FilterExpression: 'begins_with(pk, :prefix)',
            ExpressionAttributeValues: marshall({ ':prefix': prefix }),
            ...(opts.scanLimit === undefined ? {} : { Limit: opts.scanLimit }),
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
      } catch (error) {
        throw failed(`cannot scan '${prefix}*'`, error);
      }
      for (const item of page.Items ?? []) out.push(decode(str(item, 'pk') ?? prefix, item, schema));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  };

  const leaseKey = marshall({ pk: LEASE_PK });
  const leaseNames = { '#owner': 'owner', '#fence': 'fence', '#expiresAt': 'expiresAt' };

  return {
    async acquireLease(owner, now, ttlMs, breakIf) {
      const t = now.getTime();
      const item = await getItem(LEASE_PK);
      const held =
        item === undefined
          ? undefined
          : {
              owner: str(item, 'owner') ?? '',
              fence: num(item, 'fence') ?? 0,
              expiresAt: num(item, 'expiresAt') ?? 0,
            };
      const broken = held !== undefined && (await breakIf?.(held)) === true;
      if (held !== undefined && held.owner !== owner && held.expiresAt >= t && !broken) return undefined;
      const lease: Lease = { owner, fence: (held?.fence ?? 0) + 1, expiresAt: t + ttlMs };
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ pk: LEASE_PK, owner, fence: lease.fence, expiresAt: lease.expiresAt }),
            // Conditioned on the fence we read too: of two racing acquirers, only one can move it.
            ...(held === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  // A broken lease is taken on the fence alone: the holder is dead, and the fence still
                  // guarantees that of two racing takers only one wins.
                  ConditionExpression: broken
                    ? '#fence = :fence'
                    : '#fence = :fence AND (#expiresAt < :now OR #owner = :owner)',
                  ExpressionAttributeNames: broken ? { '#fence': 'fence' } : leaseNames,
                  ExpressionAttributeValues: broken
                    ? marshall({ ':fence': held.fence })
                    : marshall({ ':fence': held.fence, ':now': t, ':owner': owner }),
                }),
          }),
        );
      } catch (error) {
        if (isConditionalFailure(error)) {
          // Refused, or our own write applied and its response was lost (the SDK's retry is then
          // refused): re-read, and the lease is ours exactly when it carries our owner and new fence.
          const now = await getItem(LEASE_PK);
          const ours = now !== undefined && str(now, 'owner') === owner && num(now, 'fence') === lease.fence;
          return ours ? lease : undefined;
        }
        throw failed('cannot take the lease', error);
      }
      return lease;
    },

    async renewLease(lease, now, ttlMs) {
      const renewed: Lease = { ...lease, expiresAt: now.getTime() + ttlMs };
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: leaseKey,
            UpdateExpression: 'SET #expiresAt = :expiresAt',
            ConditionExpression: '#owner = :owner AND #fence = :fence',
            ExpressionAttributeNames: leaseNames,
            ExpressionAttributeValues: marshall({
              ':expiresAt': renewed.expiresAt,
              ':owner': lease.owner,
              ':fence': lease.fence,
            }),
          }),
        );
      } catch (error) {
        if (isConditionalFailure(error)) {
          throw new ArchiverError(
            'LEASE_HELD',
            `lease ${lease.fence} of '${lease.owner}' was lost to another run`,
            {
              cause: error,
              details: { owner: lease.owner, fence: lease.fence },
            },
          );
        }
        throw failed('cannot renew the lease', error);
      }
      return renewed;
    },

    async releaseLease(lease) {
      // Expire rather than delete: the fence must keep growing across holders.
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: leaseKey,
            UpdateExpression: 'SET #expiresAt = :zero',
            ConditionExpression: '#owner = :owner AND #fence = :fence',
            ExpressionAttributeNames: leaseNames,
            ExpressionAttributeValues: marshall({ ':zero': 0, ':owner': lease.owner, ':fence': lease.fence }),
          }),
        );
      } catch (error) {
        if (isConditionalFailure(error)) return; // no longer ours: nothing to give up
        throw failed('cannot release the lease', error);
      }
    },

    getMeta: () => getVersioned(META_PK, archiveMetaSchema),
    putMeta: (meta) => putVersioned(META_PK, meta),

    getDay: (day: Day) => getVersioned(`${DAY_PREFIX}${day}`, dayStateSchema),
    listDays: async () =>
      (await scanPrefix(DAY_PREFIX, dayStateSchema)).sort((a, b) => a.day.localeCompare(b.day)),
    putDay: (state) => putVersioned(`${DAY_PREFIX}${state.day}`, state),

    getPartition: (dt: Day, dataset: Dataset = 'history') =>
      getVersioned(partitionKey(dt, dataset), partitionManifestSchema),
    listPartitions: async () =>
      (await scanPrefix(PART_PREFIX, partitionManifestSchema)).sort(
        (a, b) => (a.dataset ?? 'history').localeCompare(b.dataset ?? 'history') || a.dt.localeCompare(b.dt),
      ),
    putPartition: (manifest) =>
      putVersioned(partitionKey(manifest.dt, manifest.dataset ?? 'history'), manifest),

    getActiveState,
    putActiveState,
  };
}

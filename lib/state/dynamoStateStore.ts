import { type DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
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
  dynamoItems,
  dynamoVersionedItems,
  type Item,
  isConditionalFailure,
  plainItem,
} from './dynamoVersionedItems.ts';
import { activeStateSchema } from './stateSchemas.ts';
import type { ActiveState, Lease, StateStore } from './stateStore.ts';
import { decodeEntity, versionConflict, versionedConcerns } from './versionedConcerns.ts';

export { ensureStateTable } from './ensureStateTable.ts';

export interface DynamoStateStoreOptions {
  client: DynamoDBClient;
  table: string;
  /** Items evaluated per Scan page (DynamoDB's `Limit`). Default: DynamoDB's own 1 MB pages. */
  scanLimit?: number;
}

const LEASE_PK = 'LEASE';
const ACTIVE_PK = 'ACTIVE';
/** Compressed live-session state kept inline in the `ACTIVE` item; more goes to chunk items. */
const MAX_COMPRESSED_ITEM_BYTES = 390_000;

function num(item: Item | undefined, name: string): number | undefined {
  const n = item === undefined ? undefined : plainItem(item)[name];
  return typeof n === 'number' ? n : undefined;
}

function str(item: Item | undefined, name: string): string | undefined {
  const v = item === undefined ? undefined : plainItem(item)[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * StateStore on one DynamoDB table keyed by `pk` only: `LEASE`, `META`, `DAY#<day>`, `PART#<dt>`, `ACTIVE`
 * (live-session observations, stored gzip-compressed in `dataGz`, or in `ACTIVE#…` chunk items when big).
 * Manifests, day state and META are the shared concerns (`versionedConcerns`) on the DynamoDB
 * versioned-item primitive (`dynamoVersionedItems`); the lease and the live state, whose items carry
 * more than JSON, are here. Every write is conditional, so two runs that both think they hold the lease
 * cannot both commit (the loser gets `CONFLICT`).
 */
export function createDynamoStateStore(opts: DynamoStateStoreOptions): StateStore {
  const { client, table } = opts;
  const { failed, getItem, conditionalPut } = dynamoItems(opts);

  /** The live state's item, decoded from its compressed bytes (`dataGz`) or its JSON `data`. */
  const decodeActive = (item: Item): ActiveState => {
    let data: unknown;
    try {
      data =
        item.dataGz?.B === undefined
          ? JSON.parse(str(item, 'data') ?? 'null')
          : decodeActiveData(item.dataGz.B);
    } catch (cause) {
      throw new ArchiverError(
        'INTERNAL',
        `state item '${ACTIVE_PK}' in table '${table}' holds invalid JSON`,
        {
          cause,
        },
      );
    }
    return decodeEntity(ACTIVE_PK, data, num(item, 'version') ?? 0, activeStateSchema, `in table '${table}'`);
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
    if (stored !== version) throw versionConflict(ACTIVE_PK, version);
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
      if (ref === undefined) return decodeActive(item);
      let bytes: Uint8Array | undefined;
      try {
        bytes = await readChunks(client, table, ref);
      } catch (error) {
        throw failed(`cannot read the chunks of '${ACTIVE_PK}'`, error);
      }
      if (bytes !== undefined) return decodeActive({ ...item, dataGz: { B: bytes } });
      // A newer state replaced (and deleted) these chunks between the two reads: read the item again.
      if (attempt >= 3) throw chunksLost(ACTIVE_PK, table, ref);
    }
  };

  const leaseKey = marshall({ pk: LEASE_PK });
  const leaseNames = { '#owner': 'owner', '#fence': 'fence', '#expiresAt': 'expiresAt' };

  return {
    ...versionedConcerns(dynamoVersionedItems(opts)),
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

    getActiveState,
    putActiveState,
  };
}

import { randomBytes } from 'node:crypto';
import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type DynaliteHandle, localDynamoClient, startDynalite } from '../../devkit/startDynalite.ts';
import type { ActiveState } from '../../lib/archive/active/activeState.ts';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { toPendingRow } from '../../lib/archive/active/storedFields.ts';
import { ACTIVE_CHUNK_PREFIX, chunkRefOf } from '../../lib/archive/state/activeChunks.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { startDropResponseProxy } from '../support/dropResponseProxy.ts';
import { serverPer } from '../support/serverPer.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');

describe('createDynamoStateStore: active state', () => {
  const dynamo = serverPer(startDynalite);

  it('stores 2000 open sessions plus their pending rows in one compressed item, versioned', async () => {
    const store = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    expect(await store.getActiveState()).toBeUndefined();
    const sessions = Array.from({ length: 2000 }, (_, i) => session(`id-${i}`, { port: 10_000 + i }));
    const diff = diffSnapshot({ sessions: {} }, sessions, T0, {
      tokenPolicy: 'hash',
      tokenKey: TOKEN_KEY,
      scheduleMs: 300_000,
    });
    const state: ActiveState = {
      ...diff.next,
      gaps: [{ from: 'a', to: 'b', ms: 1 }],
      pending: { dt: '2025-03-01', rows: diff.rows.map(toPendingRow) },
      version: 0,
    };
    const v1 = await store.putActiveState(state);
    expect(v1.version).toBe(1);
    expect(await store.getActiveState()).toEqual(v1);

    const raw = await dynamo.client.send(
      new GetItemCommand({ TableName: dynamo.table, Key: { pk: { S: 'ACTIVE' } } }),
    );
    const size = raw.Item?.bytes?.B?.byteLength ?? 0;
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThan(400_000);

    await expect(store.putActiveState(state)).rejects.toMatchObject({ code: 'CONFLICT' });
    const { pending: _p, ...cleared } = v1;
    expect((await store.putActiveState(cleared)).version).toBe(2);
    expect((await store.getActiveState())?.pending).toBeUndefined();
  });

  /** 20,000 open sessions with their pending rows: several MB compressed, far over one item. */
  const bigState = (tag: string): ActiveState => {
    const sessions = Array.from({ length: 20_000 }, (_, i) =>
      session(`${tag}-${i}`, { port: 10_000 + (i % 50_000), noise: randomBytes(24).toString('hex') }),
    );
    const diff = diffSnapshot({ sessions: {} }, sessions, T0, {
      tokenPolicy: 'hash',
      tokenKey: TOKEN_KEY,
      scheduleMs: 300_000,
    });
    return {
      ...diff.next,
      gaps: [],
      pending: { dt: '2025-03-01', rows: diff.rows.map(toPendingRow) },
      version: 0,
    };
  };

  const chunkKeys = async (h: DynaliteHandle): Promise<string[]> => {
    const keys: string[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      // Scan pages stop at 1 MB read, so a few chunks fill one: follow LastEvaluatedKey.
      const out = await h.client.send(
        new ScanCommand({
          TableName: h.table,
          FilterExpression: 'begins_with(pk, :p)',
          ExpressionAttributeValues: { ':p': { S: ACTIVE_CHUNK_PREFIX } },
          ProjectionExpression: 'pk',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      keys.push(...(out.Items ?? []).map((item) => item.pk?.S ?? ''));
      start = out.LastEvaluatedKey;
    } while (start !== undefined);
    return keys.sort();
  };

  const headChunks = async (h: DynaliteHandle) => {
    const head = await dynamoVersionedItems({ client: h.client, table: h.table }).get('ACTIVE');
    return { inline: head?.bytes !== undefined, ref: chunkRefOf(head) };
  };

  describe('a state too big for one item', () => {
    const fresh = serverPer(startDynalite, 'test');

    it('goes to chunk items the ACTIVE item names; replaced chunks are deleted, back to inline when small', async () => {
      const store = createDynamoStateStore({ client: fresh.client, table: fresh.table });
      const state = bigState('a');
      const v1 = await store.putActiveState(state);
      const first = await headChunks(fresh);
      expect(first.inline).toBe(false);
      expect(first.ref?.n).toBeGreaterThan(1);
      expect(await chunkKeys(fresh)).toHaveLength(first.ref?.n ?? -1);
      expect(await store.getActiveState()).toEqual(v1);

      const { pending: _p, ...cleared } = v1;
      const v2 = await store.putActiveState({ ...cleared, lastSnapshotAt: '2025-03-01T12:05:00.000Z' });
      const second = await headChunks(fresh);
      expect(second.ref?.prefix).not.toBe(first.ref?.prefix);
      // Only the new state's chunks are left.
      expect((await chunkKeys(fresh)).every((k) => k.startsWith(second.ref?.prefix ?? '?'))).toBe(true);
      expect(await store.getActiveState()).toEqual(v2);

      const small = await store.putActiveState({ sessions: {}, gaps: [], version: v2.version });
      expect(await headChunks(fresh)).toEqual({ inline: true, ref: undefined });
      expect(await chunkKeys(fresh)).toEqual([]);
      expect(await store.getActiveState()).toEqual(small);
    });

    it('keeps one chain when two writers race: the loser gets CONFLICT and leaves no chunks behind', async () => {
      const a = createDynamoStateStore({ client: fresh.client, table: fresh.table });
      const b = createDynamoStateStore({ client: fresh.client, table: fresh.table });
      const v1 = await a.putActiveState(bigState('base'));
      const results = await Promise.allSettled([
        a.putActiveState({ ...bigState('x'), version: v1.version }),
        b.putActiveState({ ...bigState('y'), version: v1.version }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected');
      expect((lost as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
      const head = await headChunks(fresh);
      expect((await chunkKeys(fresh)).every((k) => k.startsWith(head.ref?.prefix ?? '?'))).toBe(true);
      expect((await a.getActiveState())?.version).toBe(2);
    });

    it('settles a head write whose answer was lost: it won, and its chunks stay', async () => {
      const proxy = await startDropResponseProxy({
        target: fresh.endpoint,
        // Drop the answer of the first conditional head write only (its data names the chunks).
        shouldDrop: (w) => w.operation === 'PutItem' && w.body.includes('\\"chunks\\"') && !dropped++,
      });
      let dropped = 0;
      const client = localDynamoClient(proxy.url);
      try {
        const store = createDynamoStateStore({ client, table: fresh.table });
        const v1 = await store.putActiveState(bigState('lost'));
        expect(proxy.stats().dropped).toBe(1);
        expect(v1.version).toBe(1);
        const head = await headChunks(fresh);
        expect(await chunkKeys(fresh)).toHaveLength(head.ref?.n ?? -1);
        expect(await store.getActiveState()).toEqual(v1);
      } finally {
        client.destroy();
        await proxy.close();
      }
    });

    it('reads the item again when a newer state replaced its chunks mid-read', async () => {
      const writer = createDynamoStateStore({ client: fresh.client, table: fresh.table });
      const v1 = await writer.putActiveState(bigState('old'));
      let raced = false;
      const racing = {
        send: async (command: { input: { Key?: { pk?: { S?: string } } } }) => {
          if (!raced && command.input.Key?.pk?.S?.startsWith(ACTIVE_CHUNK_PREFIX)) {
            raced = true;
            await writer.putActiveState({ ...bigState('new'), version: v1.version });
          }
          return fresh.client.send(command as never);
        },
      } as unknown as DynamoDBClient;
      const reader = createDynamoStateStore({ client: racing, table: fresh.table });
      const read = await reader.getActiveState();
      expect(raced).toBe(true);
      expect(read?.version).toBe(2);
      expect(Object.keys(read?.sessions ?? {})[0]).toMatch(/^new-/);
    });

    it('names chunks that are gone and says how to recover, rather than reading half a state', async () => {
      const store = createDynamoStateStore({ client: fresh.client, table: fresh.table });
      await store.putActiveState(bigState('gone'));
      const [victim] = await chunkKeys(fresh);
      await fresh.client.send(
        new DeleteItemCommand({ TableName: fresh.table, Key: { pk: { S: victim ?? '' } } }),
      );
      await expect(store.getActiveState()).rejects.toMatchObject({
        code: 'STORE_FAILED',
        message: expect.stringContaining("delete the 'ACTIVE' item"),
      });
    });
  });
});

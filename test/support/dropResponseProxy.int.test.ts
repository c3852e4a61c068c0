import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynaliteHandle, localDynamoClient, startDynalite } from '../../devkit/startDynalite.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import type { PartitionManifest } from '../../lib/archive/state/partitionManifest.ts';
import { type DropResponseProxy, startDropResponseProxy } from './dropResponseProxy.ts';

const manifest = (dt: string): PartitionManifest => ({ dt, version: 0, files: [] });

describe('startDropResponseProxy', () => {
  let dynamo: DynaliteHandle;
  let proxy: DropResponseProxy;
  let client: ReturnType<typeof localDynamoClient>;

  beforeAll(async () => {
    dynamo = await startDynalite();
    proxy = await startDropResponseProxy({ target: dynamo.endpoint, dropRate: 0 });
    client = localDynamoClient(proxy.url);
  });
  afterAll(async () => {
    client?.destroy();
    await proxy?.close();
    await dynamo?.close();
  });

  it('forwards reads and writes untouched when nothing is dropped', async () => {
    const store = createDynamoStateStore({ client, table: dynamo.table });
    const v1 = await store.putPartition(manifest('2024-01-01'));
    expect(await store.getPartition('2024-01-01')).toEqual(v1);
    expect(proxy.stats()).toMatchObject({ applied: 1, dropped: 0 });
    expect(proxy.stats().forwarded).toBeGreaterThanOrEqual(2);
  });

  it('drops the answer of an applied conditional put: applied once, and the SDK retry gets ConditionalCheckFailed', async () => {
    const before = proxy.stats();
    const put = new PutItemCommand({
      TableName: dynamo.table,
      Item: {
        pk: { S: 'PART#2024-01-02' },
        version: { N: '1' },
        data: { S: '{"dt":"2024-01-02","files":[]}' },
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    const once = { n: 0 };
    proxy.setShouldDrop((w) => w.body.includes('PART#2024-01-02') && once.n++ === 0);
    await expect(client.send(put)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const after = proxy.stats();
    expect(after.dropped - before.dropped).toBe(1);
    // The first attempt was applied; the retry was refused by its condition: exactly one write landed.
    expect(after.applied - before.applied).toBe(1);
    const item = await client.send(
      new GetItemCommand({
        TableName: dynamo.table,
        Key: { pk: { S: 'PART#2024-01-02' } },
        ConsistentRead: true,
      }),
    );
    expect(item.Item?.version?.N).toBe('1');
    proxy.setShouldDrop(undefined);
  });

  it('turns that into CONFLICT in the state store although its own write is the one stored', async () => {
    const store = createDynamoStateStore({ client, table: dynamo.table });
    const once = { n: 0 };
    proxy.setShouldDrop((w) => w.body.includes('PART#2024-01-03') && once.n++ === 0);
    await expect(store.putPartition(manifest('2024-01-03'))).rejects.toMatchObject({ code: 'CONFLICT' });
    proxy.setShouldDrop(undefined);
    expect(await store.getPartition('2024-01-03')).toEqual({ ...manifest('2024-01-03'), version: 1 });
  });

  it('applies an unconditional update twice when its answer is dropped (why writes must be conditional)', async () => {
    const key = { pk: { S: 'COUNTER' } };
    const add = new UpdateItemCommand({
      TableName: dynamo.table,
      Key: key,
      UpdateExpression: 'ADD hits :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    });
    const once = { n: 0 };
    proxy.setShouldDrop((w) => w.operation === 'UpdateItem' && once.n++ === 0);
    await client.send(add);
    proxy.setShouldDrop(undefined);
    const item = await client.send(
      new GetItemCommand({ TableName: dynamo.table, Key: key, ConsistentRead: true }),
    );
    expect(item.Item?.hits?.N).toBe('2');
  });

  it('drops a seeded ~10% of applied writes, the same ones for the same seed', async () => {
    const run = async (seed: number) => {
      const p = await startDropResponseProxy({ target: dynamo.endpoint, seed, dropRate: 0.1 });
      const c = localDynamoClient(p.url);
      const drops: number[] = [];
      try {
        for (let i = 0; i < 120; i++) {
          const before = p.stats().dropped;
          await c.send(
            new PutItemCommand({
              TableName: dynamo.table,
              Item: { pk: { S: `RATE#${seed}#${i}` }, version: { N: '1' }, data: { S: '{}' } },
            }),
          );
          if (p.stats().dropped > before) drops.push(i);
        }
        return { drops, stats: p.stats() };
      } finally {
        c.destroy();
        await p.close();
      }
    };
    const a = await run(5);
    expect(a.stats.dropped).toBeGreaterThan(4);
    expect(a.stats.dropped).toBeLessThan(30);
    // Every dropped write was retried and applied again (unconditional puts): applied = 120 + dropped.
    expect(a.stats.applied).toBe(120 + a.stats.dropped);
    const b = await run(5);
    expect(b.drops).toEqual(a.drops);
  });

  it('lets a writer that re-reads after CONFLICT record every step exactly once at a 10% drop rate', async () => {
    const p = await startDropResponseProxy({ target: dynamo.endpoint, seed: 11, dropRate: 0.1 });
    const c = localDynamoClient(p.url);
    try {
      const store = createDynamoStateStore({ client: c, table: dynamo.table });
      let conflicts = 0;
      for (let i = 0; i < 60; i++) {
        const current = (await store.getDay('2024-02-01')) ?? {
          day: '2024-02-01',
          scannedAges: [],
          sealed: false,
          version: 0,
        };
        try {
          await store.putDay({ ...current, scannedAges: [...current.scannedAges, i] });
        } catch (error) {
          if ((error as { code?: string }).code !== 'CONFLICT') throw error;
          conflicts++;
          // Unknown outcome: re-read; our write is there (no one else writes), so it succeeded.
          const after = await store.getDay('2024-02-01');
          expect(after?.scannedAges.at(-1)).toBe(i);
          expect(after?.version).toBe(current.version + 1);
        }
      }
      expect((await store.getDay('2024-02-01'))?.scannedAges).toEqual(
        Array.from({ length: 60 }, (_, i) => i),
      );
      expect(p.stats().dropped).toBeGreaterThan(0);
      expect(conflicts).toBe(p.stats().dropped);
    } finally {
      c.destroy();
      await p.close();
    }
  });
});

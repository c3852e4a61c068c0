import { type AttributeValue, GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import type { ActiveState } from '../../lib/archive/active/activeState.ts';
import { encodeActiveData } from '../../lib/archive/state/activeStateItem.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';

type Item = Record<string, AttributeValue>;

/**
 * The store marshals with @aws-sdk/util-dynamodb; the item layout on disk is pinned here, and the items
 * older releases wrote (local `.state` folders, the AWS table) are read and taken over.
 */
describe('createDynamoStateStore item layout', () => {
  let dynamo: DynaliteHandle;
  let tables = 0;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo.close();
  });

  /** A store on a fresh table holding `items` as written by hand (an older release's layout). */
  const storeWith = async (...items: Item[]): Promise<{ store: StateStore; table: string }> => {
    const table = `layout-${++tables}`;
    await ensureStateTable(dynamo.client, table);
    for (const Item of items) await dynamo.client.send(new PutItemCommand({ TableName: table, Item }));
    return { store: createDynamoStateStore({ client: dynamo.client, table }), table };
  };
  const raw = async (table: string, pk: string): Promise<Item | undefined> =>
    (await dynamo.client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } } }))).Item;
  const keys = async (table: string): Promise<string[]> =>
    ((await dynamo.client.send(new ScanCommand({ TableName: table }))).Items ?? [])
      .map((i) => i.pk?.S ?? '')
      .sort();

  /** The lease as an older release stored it: plain attributes, no `version`, no `data`. */
  const oldLease = (owner: string, fence: number, expiresAt: number): Item => ({
    pk: { S: 'LEASE' },
    owner: { S: owner },
    fence: { N: String(fence) },
    expiresAt: { N: String(expiresAt) },
  });
  const live: Omit<ActiveState, 'version'> = {
    sessions: {},
    gaps: [{ from: '2024-06-01T00:00:00.000Z', to: '2024-06-01T01:00:00.000Z', ms: 3_600_000 }],
    lastSnapshotAt: '2024-06-01T01:00:00.000Z',
  };

  it('reads an item written in the original hand-marshalled layout', async () => {
    const { store } = await storeWith({
      pk: { S: 'DAY#2024-06-01' },
      version: { N: '3' },
      data: { S: JSON.stringify({ day: '2024-06-01', scannedAges: [0, 1], sealed: false }) },
    });
    expect(await store.getDay('2024-06-01')).toEqual({
      day: '2024-06-01',
      scannedAges: [0, 1],
      sealed: false,
      version: 3,
    });
  });

  it('writes pk, a numeric version and a JSON data string, the lease and the live state too (its gzip as bytes)', async () => {
    const { store, table } = await storeWith();
    await store.putMeta({
      firstRunAt: '2024-06-01T00:00:00.000Z',
      firstWindowStart: '2024-04-03',
      version: 0,
    });
    expect(await raw(table, 'META')).toEqual({
      pk: { S: 'META' },
      version: { N: '1' },
      data: { S: JSON.stringify({ firstRunAt: '2024-06-01T00:00:00.000Z', firstWindowStart: '2024-04-03' }) },
    });
    const lease = await store.acquireLease('run-1', new Date(1_000), 60_000);
    expect(lease).toEqual({ owner: 'run-1', fence: 1, expiresAt: 61_000 });
    expect(await raw(table, 'LEASE')).toEqual({
      pk: { S: 'LEASE' },
      version: { N: '1' },
      data: { S: JSON.stringify({ owner: 'run-1', fence: 1, expiresAt: 61_000 }) },
    });
    expect(await store.acquireLease('run-2', new Date(2_000), 60_000)).toBeUndefined();
    await store.releaseLease(lease as NonNullable<typeof lease>);
    expect(await store.acquireLease('run-2', new Date(3_000), 60_000)).toMatchObject({ fence: 2 });
    await store.putActiveState({ ...live, version: 0 });
    expect(await raw(table, 'ACTIVE')).toEqual({
      pk: { S: 'ACTIVE' },
      version: { N: '1' },
      data: { S: '{}' },
      bytes: { B: new Uint8Array(encodeActiveData(live)) },
    });
  });

  it('takes over an expired lease an older release wrote (no version) with the next fence, for exactly one of racing acquirers', async () => {
    const { store, table } = await storeWith(oldLease('old-run', 4, 10_000));
    const now = new Date(20_000);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.acquireLease(`runner-${i}`, now, 60_000)),
    );
    const winners = results.filter((l) => l !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ fence: 5, expiresAt: 80_000 });
    expect(await raw(table, 'LEASE')).toEqual({
      pk: { S: 'LEASE' },
      version: { N: '1' },
      data: { S: JSON.stringify(winners[0]) },
    });
  });

  it('honours a held lease an older release wrote: refused to others, renewed and released by its holder', async () => {
    const { store } = await storeWith(oldLease('old-run', 4, 61_000));
    const held = { owner: 'old-run', fence: 4, expiresAt: 61_000 };
    expect(await store.acquireLease('run-2', new Date(2_000), 60_000)).toBeUndefined();
    await expect(store.renewLease({ ...held, fence: 3 }, new Date(2_000), 60_000)).rejects.toMatchObject({
      code: 'LEASE_HELD',
    });
    expect(await store.renewLease(held, new Date(3_000), 60_000)).toEqual({ ...held, expiresAt: 63_000 });
    expect(await store.acquireLease('run-2', new Date(62_000), 60_000)).toBeUndefined();
    await store.releaseLease(held);
    expect(await store.acquireLease('run-2', new Date(62_000), 60_000)).toMatchObject({ fence: 5 });
  });

  it('reads the live state an older release wrote, inline (dataGz) or as plain JSON, and replaces it at its version', async () => {
    for (const body of [{ dataGz: { B: encodeActiveData(live) } }, { data: { S: JSON.stringify(live) } }]) {
      const { store, table } = await storeWith({ pk: { S: 'ACTIVE' }, version: { N: '3' }, ...body });
      expect(await store.getActiveState()).toEqual({ ...live, version: 3 });
      const next = { ...live, lastSnapshotAt: '2024-06-01T02:00:00.000Z' };
      expect(await store.putActiveState({ ...next, version: 3 })).toEqual({ ...next, version: 4 });
      expect(await store.getActiveState()).toEqual({ ...next, version: 4 });
      expect(await raw(table, 'ACTIVE')).not.toHaveProperty('dataGz');
    }
  });

  it('reads a chunked live state an older release wrote (chunks attribute, part items) and deletes its chunks when replaced', async () => {
    const bytes = encodeActiveData(live);
    const half = Math.ceil(bytes.byteLength / 2);
    const { store, table } = await storeWith(
      {
        pk: { S: 'ACTIVE' },
        version: { N: '2' },
        chunks: { M: { prefix: { S: 'ACTIVE#2#0ld0ld00#' }, n: { N: '2' } } },
      },
      { pk: { S: 'ACTIVE#2#0ld0ld00#0' }, part: { B: bytes.subarray(0, half) } },
      { pk: { S: 'ACTIVE#2#0ld0ld00#1' }, part: { B: bytes.subarray(half) } },
    );
    expect(await store.getActiveState()).toEqual({ ...live, version: 2 });
    await store.putActiveState({ ...live, gaps: [], version: 2 });
    expect(await keys(table)).toEqual(['ACTIVE']);
    expect(await store.getActiveState()).toEqual({ ...live, gaps: [], version: 3 });
  });
});

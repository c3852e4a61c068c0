import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite } from '../../devkit/startDynalite.ts';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import { fileVersionedItems } from '../../lib/archive/state/fileVersionedItems.ts';
import type { PartitionManifest } from '../../lib/archive/state/partitionManifest.ts';
import { stateConcerns } from '../../lib/archive/state/stateConcerns.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { serverSlot } from '../support/serverPer.ts';

const T0 = new Date('2024-06-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const TTL = 60_000;

const dayState = (day: string, extra: Partial<DayState> = {}): DayState => ({
  day,
  scannedAges: [],
  sealed: false,
  version: 0,
  ...extra,
});

const manifest = (dt: string, version = 0): PartitionManifest => ({
  dt,
  version,
  files: [
    {
      name: `part-${dt}.parquet`,
      stagingKey: `_staging/r1/part-${dt}.parquet`,
      rows: 10,
      bytes: 2048,
      runId: 'r1',
      fence: 1,
      committedAt: '2024-06-01T00:00:00.000Z',
      published: false,
    },
  ],
});

/** What the contract needs of an adapter: a fresh store per concern, and a way to plant a raw item. */
interface StateSubject {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A store on its own table (`scanLimit`: items per listing page, where the adapter pages). */
  storeOn(table: string, scanLimit?: number): Promise<StateStore>;
  /** Writes `data` JSON under `pk` at version 1, bypassing the store (a malformed item). */
  putRaw(table: string, pk: string, data: string): Promise<void>;
}

function dynamoSubject(): StateSubject {
  const { server: dynamo, start, stop } = serverSlot(startDynalite);
  return {
    name: 'createDynamoStateStore',
    start,
    stop,
    // A fresh table per concern keeps the lease and listing tests independent.
    storeOn: async (table, scanLimit) => {
      await ensureStateTable(dynamo.client, table);
      return createDynamoStateStore({
        client: dynamo.client,
        table,
        ...(scanLimit === undefined ? {} : { scanLimit }),
      });
    },
    putRaw: async (table, pk, data) => {
      await dynamo.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { pk: { S: pk }, version: { N: '1' }, data: { S: data } },
        }),
      );
    },
  };
}

/** Local mode's store: the same concerns on the file primitive (`stateConcerns(fileVersionedItems)`). */
function fileSubject(): StateSubject {
  let root = '';
  return {
    name: 'stateConcerns(fileVersionedItems)',
    start: async () => {
      root = await mkdtemp(join(tmpdir(), 'ta-state-'));
    },
    stop: () => rm(root, { recursive: true, force: true }),
    storeOn: async (table) => stateConcerns(fileVersionedItems(join(root, table))),
    putRaw: (table, pk, data) => fileVersionedItems(join(root, table)).put(pk, 0, data),
  };
}

function memorySubject(): StateSubject {
  const tables = new Map<string, MemoryStateStore>();
  const tableOf = (table: string): MemoryStateStore => {
    let store = tables.get(table);
    if (store === undefined) {
      store = new MemoryStateStore();
      tables.set(table, store);
    }
    return store;
  };
  return {
    name: 'MemoryStateStore',
    start: async () => {},
    stop: async () => {
      tables.clear();
    },
    storeOn: async (table) => tableOf(table),
    putRaw: async (table, pk, data) => tableOf(table).setRaw(pk, JSON.parse(data)),
  };
}

describe.each([dynamoSubject(), fileSubject(), memorySubject()])('$name (StateStore contract)', (subject) => {
  const storeOn = subject.storeOn;

  beforeAll(async () => {
    await subject.start();
  });
  afterAll(async () => {
    await subject.stop();
  });

  describe('versioned items', () => {
    it('creates at version 0 → 1 and updates at the stored version', async () => {
      const store = await storeOn('versioned');
      expect(await store.getDay('2024-05-01')).toBeUndefined();
      const v1 = await store.putDay(dayState('2024-05-01', { scannedAges: [1], totalElements: 5 }));
      expect(v1.version).toBe(1);
      const v2 = await store.putDay({ ...v1, sealed: true, sealedAt: '2024-06-01T00:00:00Z' });
      expect(v2.version).toBe(2);
      expect(await store.getDay('2024-05-01')).toEqual(v2);
    });

    it.each([
      ['creating an item that exists', 0],
      ['updating from a stale version', 1],
      ['updating from a future version', 7],
    ])('fails with CONFLICT when %s', async (_label, expected) => {
      const store = await storeOn('conflicts');
      const dt = `2024-05-0${expected + 2}`;
      const v1 = await store.putPartition(manifest(dt));
      await store.putPartition(v1);
      await expect(store.putPartition(manifest(dt, expected))).rejects.toMatchObject({
        code: 'CONFLICT',
        retryable: true,
        details: { pk: `PART#${dt}`, expectedVersion: expected },
      });
      expect((await store.getPartition(dt))?.version).toBe(2);
    });

    it('lets exactly one of many concurrent writers of the same version win', async () => {
      const store = await storeOn('racing-writers');
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.putMeta({ firstRunAt: `run-${i}`, firstWindowStart: '2024-04-01', version: 0 }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const winner = results.find((r) => r.status === 'fulfilled');
      expect(await store.getMeta()).toEqual(winner?.status === 'fulfilled' ? winner.value : undefined);
    });

    it('round-trips meta with optional fields absent and present', async () => {
      const store = await storeOn('meta');
      const v1 = await store.putMeta({
        firstRunAt: '2024-06-01T00:00:00Z',
        firstWindowStart: '2024-04-02',
        version: 0,
      });
      expect(await store.getMeta()).toEqual(v1);
      expect(v1).not.toHaveProperty('lastRunAt');
      const v2 = await store.putMeta({ ...v1, lastRunAt: 'a', lastSuccessAt: 'b' });
      expect(await store.getMeta()).toEqual(v2);
    });

    it('reports a malformed stored item as INTERNAL instead of returning it', async () => {
      const store = await storeOn('malformed');
      await subject.putRaw('malformed', 'DAY#2024-05-01', '{"day":"yesterday"}');
      await expect(store.getDay('2024-05-01')).rejects.toMatchObject({ code: 'INTERNAL' });
    });
  });

  describe('listing', () => {
    it('lists every day and partition across many small scan pages, in order, and nothing else', async () => {
      const store = await storeOn('listing', 3);
      const days = Array.from({ length: 25 }, (_, i) => addDays('2024-03-01', i));
      await Promise.all(days.map((d) => store.putDay(dayState(d))));
      await Promise.all(days.slice(0, 17).map((d) => store.putPartition(manifest(d))));
      await store.putMeta({ firstRunAt: 'x', firstWindowStart: '2024-03-01', version: 0 });
      await store.acquireLease('owner', T0, TTL);
      expect((await store.listDays()).map((d) => d.day)).toEqual(days);
      expect((await store.listPartitions()).map((p) => p.dt)).toEqual(days.slice(0, 17));
      expect((await store.listPartitions())[0]).toEqual({ ...manifest(days[0] ?? ''), version: 1 });
    });

    it('reads the stored states of given days at once, in order, leaving out the days never stored', async () => {
      const store = await storeOn('days-at-once');
      const days = Array.from({ length: 120 }, (_, i) => addDays('2024-01-01', i));
      const stored = days.filter((_, i) => i % 4 !== 1);
      await Promise.all(stored.map((d) => store.putDay(dayState(d, { scannedAges: [1] }))));
      await store.putPartition(manifest(days[0] ?? ''));
      const read = await store.getDays(days);
      expect(read.map((d) => d.day)).toEqual(stored);
      expect(read[0]).toEqual(dayState(stored[0] ?? '', { scannedAges: [1], version: 1 }));
      expect(await store.getDays([])).toEqual([]);
    });

    it('keeps partition datasets apart: history keeps its old key, active has its own, and listing returns both', async () => {
      const store = await storeOn('datasets');
      await store.putPartition(manifest('2024-05-01'));
      await store.putPartition({ ...manifest('2024-05-01'), dataset: 'active' });
      expect((await store.getPartition('2024-05-01'))?.dataset).toBeUndefined();
      expect(await store.getPartition('2024-05-01', 'active')).toMatchObject({
        dataset: 'active',
        version: 1,
      });
      expect(await store.getPartition('2024-05-02', 'active')).toBeUndefined();
      await expect(
        store.putPartition({ ...manifest('2024-05-01'), dataset: 'active' }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      expect((await store.listPartitions()).map((m) => `${m.dataset ?? 'history'}/${m.dt}`)).toEqual([
        'active/2024-05-01',
        'history/2024-05-01',
      ]);
    });

    it('lets a lease whose holder is certainly dead be taken at once, on the fence alone', async () => {
      const store = await storeOn('lease-break');
      await store.acquireLease('dead@host:1', T0, TTL);
      expect(await store.acquireLease('b', at(1), TTL, (h) => h.owner === 'alive')).toBeUndefined();
      const b = await store.acquireLease('b', at(2), TTL, (h) => h.owner === 'dead@host:1');
      expect(b).toMatchObject({ owner: 'b', fence: 2 });
    });

    it('lists nothing from an empty table', async () => {
      const store = await storeOn('empty');
      expect(await store.listDays()).toEqual([]);
      expect(await store.listPartitions()).toEqual([]);
    });
  });

  describe('live state', () => {
    it('is absent, then stored at version 0 → 1 and replaced only at the stored version', async () => {
      const store = await storeOn('live');
      expect(await store.getActiveState()).toBeUndefined();
      const v1 = await store.putActiveState({ sessions: {}, gaps: [], lastSnapshotAt: 'a', version: 0 });
      expect(v1.version).toBe(1);
      expect(await store.getActiveState()).toEqual(v1);
      await expect(store.putActiveState({ ...v1, version: 0 })).rejects.toMatchObject({
        code: 'CONFLICT',
        details: { pk: 'ACTIVE', expectedVersion: 0 },
      });
      const v2 = await store.putActiveState({ ...v1, lastSnapshotAt: 'b' });
      expect(await store.getActiveState()).toEqual(v2);
    });

    it('round-trips a state too big for one item (chunks), and a small one after it', async () => {
      const store = await storeOn('live-big');
      // Random hex barely compresses: about 600 KB of gzip, more than one item holds.
      const gaps = Array.from({ length: 6000 }, () => ({
        from: randomBytes(100).toString('hex'),
        to: 'x',
        ms: 1,
      }));
      const big = await store.putActiveState({ sessions: {}, gaps, version: 0 });
      expect(await store.getActiveState()).toEqual(big);
      const small = await store.putActiveState({ ...big, gaps: [] });
      expect(await store.getActiveState()).toEqual(small);
    });
  });

  describe('lease', () => {
    it('is taken when free, refused to others while held, and stolen once expired with a higher fence', async () => {
      const store = await storeOn('lease-steal');
      const a = await store.acquireLease('a', T0, TTL);
      expect(a).toEqual({ owner: 'a', fence: 1, expiresAt: T0.getTime() + TTL });
      expect(await store.acquireLease('b', at(TTL - 1), TTL)).toBeUndefined();
      expect(await store.acquireLease('b', at(TTL), TTL)).toBeUndefined();
      const b = await store.acquireLease('b', at(TTL + 1), TTL);
      expect(b).toEqual({ owner: 'b', fence: 2, expiresAt: T0.getTime() + 2 * TTL + 1 });
    });

    it('is re-acquired by its own owner with the next fence', async () => {
      const store = await storeOn('lease-reacquire');
      await store.acquireLease('a', T0, TTL);
      expect((await store.acquireLease('a', at(1), TTL))?.fence).toBe(2);
    });

    it('is renewed by its holder, which keeps others out past the first expiry', async () => {
      const store = await storeOn('lease-renew');
      const a = await store.acquireLease('a', T0, TTL);
      if (a === undefined) throw new Error('lease not taken');
      const renewed = await store.renewLease(a, at(TTL - 10), TTL);
      expect(renewed).toEqual({ ...a, expiresAt: T0.getTime() + 2 * TTL - 10 });
      expect(await store.acquireLease('b', at(TTL + 1), TTL)).toBeUndefined();
    });

    it('is renewed at once by many workers holding it (fan-out), each renewal holding, the latest kept', async () => {
      const store = await storeOn('lease-siblings');
      const a = await store.acquireLease('orchestration', T0, TTL);
      if (a === undefined) throw new Error('lease not taken');
      const renewed = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.renewLease(a, at(10 + (i % 3)), TTL)),
      );
      expect(renewed.map((r) => r.expiresAt - T0.getTime() - TTL).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => 10 + (i % 3)).sort(),
      );
      expect(await store.acquireLease('b', at(TTL + 12), TTL)).toBeUndefined();
      expect(await store.acquireLease('b', at(TTL + 13), TTL)).toMatchObject({ owner: 'b', fence: 2 });
    });

    it('cannot be renewed after it was stolen: LEASE_HELD', async () => {
      const store = await storeOn('lease-lost');
      const a = await store.acquireLease('a', T0, TTL);
      if (a === undefined) throw new Error('lease not taken');
      await store.acquireLease('b', at(TTL + 1), TTL);
      await expect(store.renewLease(a, at(TTL + 2), TTL)).rejects.toMatchObject({ code: 'LEASE_HELD' });
    });

    it('is free at once after release, and the fence keeps growing', async () => {
      const store = await storeOn('lease-release');
      const a = await store.acquireLease('a', T0, TTL);
      if (a === undefined) throw new Error('lease not taken');
      await store.releaseLease(a);
      const b = await store.acquireLease('b', at(1), TTL);
      expect(b?.fence).toBe(2);
      // A stale holder's release does not free the new holder's lease.
      await store.releaseLease(a);
      expect(await store.acquireLease('c', at(2), TTL)).toBeUndefined();
    });

    it.each([
      ['a free lease', false],
      ['an expired lease', true],
    ])('goes to exactly one of many concurrent acquirers of %s', async (_label, preTaken) => {
      const store = await storeOn(preTaken ? 'lease-race-expired' : 'lease-race-free');
      if (preTaken) await store.acquireLease('old', T0, TTL);
      const now = at(preTaken ? TTL + 1 : 0);
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => store.acquireLease(`runner-${i}`, now, TTL)),
      );
      const winners = results.filter((l) => l !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.fence).toBe(preTaken ? 2 : 1);
    });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetSchema } from 'hyparquet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeParquetBytes, readActiveRows } from '../../lib/archive/active/activeParquet.ts';
import { ACTIVE_COLUMNS } from '../../lib/archive/active/activeSchema.ts';
import { committerRowSink } from '../../lib/archive/active/committerRowSink.ts';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { rebuildActiveFromArchive } from '../../lib/archive/active/rebuildActiveFromArchive.ts';
import { rebuildActiveObservations } from '../../lib/archive/active/rebuildActiveObservations.ts';
import { PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { readStringColumn } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const OPTS = { tokenPolicy: 'keep' as const, tokenKey: TOKEN_KEY, scheduleMs: 300_000 };
const rowsOf = () =>
  diffSnapshot(
    { sessions: {} },
    [session('a', { token: 'tok', userId: 2 ** 40 }), session('b', { customdomain: 'x.example' })],
    T0,
    OPTS,
  ).rows;

describe('activeParquetBytes', () => {
  it('round-trips every column, ids as 64-bit and times as UTC instants', async () => {
    const rows = rowsOf();
    expect(await readActiveRows(await activeParquetBytes(rows))).toEqual(rows);
  });

  it('writes the Glue columns in order, timestamps as TIMESTAMP(MILLIS, UTC)', async () => {
    const bytes = await activeParquetBytes(rowsOf());
    const schema = parquetSchema(parquetMetadata(bytes.buffer as ArrayBuffer));
    expect(schema.children.map((c) => c.element.name)).toEqual(ACTIVE_COLUMNS.map((c) => c.name));
    const observed = schema.children.find((c) => c.element.name === 'observed_at')?.element;
    expect(observed?.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
    const ids: string[] = [];
    for await (const id of readStringColumn(bytes, 'row_id')) ids.push(id);
    expect(ids).toEqual(rowsOf().map((r) => r.row_id));
  });
});

describe('committerRowSink', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sink-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sink = (objects: ObjectStore, state: MemoryStateStore) =>
    committerRowSink(
      new PartitionCommitter({
        objects,
        state,
        clock: new ManualClock(T0),
        logger: silentLogger,
        runId: 'snap',
        fence: 0,
        tmpDir: join(dir, 'tmp'),
      }),
    );

  it('commits through the manifest only the rows the partition does not hold, published under active/', async () => {
    const objects = createFileObjectStore(join(dir, 'archive'));
    const state = new MemoryStateStore();
    const commit = sink(objects, state);
    const rows = rowsOf();
    expect((await commit('2025-03-01', rows.slice(0, 1))).newRecords).toBe(1);
    expect((await commit('2025-03-01', rows)).newRecords).toBe(1);
    expect((await commit('2025-03-01', rows)).newRecords).toBe(0);
    const keys: string[] = [];
    for await (const info of objects.list('active/')) keys.push(info.key);
    expect(keys).toHaveLength(2);
    const manifest = await state.getPartition('2025-03-01', 'active');
    expect(manifest?.files.map((f) => `active/dt=2025-03-01/${f.name}`).sort()).toEqual(keys.sort());
    expect(manifest?.files.every((f) => f.published)).toBe(true);
  });

  it('rebuilds the observations from what it wrote', async () => {
    const objects = createFileObjectStore(join(dir, 'archive'));
    expect(await rebuildActiveFromArchive(objects)).toBeUndefined();
    const diff = diffSnapshot({ sessions: {} }, [session('a'), session('b')], T0, OPTS);
    await sink(objects, new MemoryStateStore())('2025-03-01', diff.rows);
    expect(await rebuildActiveFromArchive(objects)).toEqual(diff.next);
  });
});

describe('rebuildActiveObservations', () => {
  it('keeps the last row per id, closes ids last seen gone, counts rows per id as seq', () => {
    const first = diffSnapshot({ sessions: {} }, [session('a'), session('b')], T0, OPTS);
    const t1 = new Date(T0.getTime() + 300_000);
    const second = diffSnapshot(first.next, [session('a', { port: 1 })], t1, OPTS);
    const rows = [...second.rows, ...first.rows, ...first.rows]; // any order, repeats
    const rebuilt = rebuildActiveObservations(rows);
    expect(Object.keys(rebuilt.sessions)).toEqual(['a']);
    expect(rebuilt.sessions.a).toEqual({ ...second.next.sessions.a, lastSeenAt: t1.toISOString() });
    expect(rebuilt.lastSnapshotAt).toBe(t1.toISOString());
    expect(rebuilt.closed).toEqual({ b: { seq: 2, goneAt: t1.toISOString() } });
    expect(rebuilt.closed).toEqual(second.next.closed);
    expect(rebuildActiveObservations([])).toEqual({ sessions: {}, closed: {} });
  });
});

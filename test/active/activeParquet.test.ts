import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetSchema } from 'hyparquet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeParquetBytes, readActiveRowIds, readActiveRows } from '../../lib/active/activeParquet.ts';
import { ACTIVE_COLUMNS } from '../../lib/active/activeSchema.ts';
import { diffSnapshot } from '../../lib/active/diffSnapshot.ts';
import { objectStoreRowSink } from '../../lib/active/objectStoreRowSink.ts';
import { rebuildActiveFromArchive } from '../../lib/active/readActiveArchive.ts';
import { rebuildActiveObservations } from '../../lib/active/rebuildActiveObservations.ts';
import { createFileObjectStore } from '../../lib/store/fileObjectStore.ts';
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
    expect(await readActiveRowIds(bytes)).toEqual(rowsOf().map((r) => r.row_id));
  });
});

describe('objectStoreRowSink', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sink-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes only rows the partition does not hold, under a name derived from them', async () => {
    const objects = createFileObjectStore(dir);
    const commit = objectStoreRowSink(objects);
    const rows = rowsOf();
    const first = await commit('2025-03-01', rows.slice(0, 1));
    expect(first.written).toBe(1);
    expect(first.key).toMatch(/^active\/dt=2025-03-01\/part-[0-9a-f]{32}\.parquet$/);
    expect((await commit('2025-03-01', rows)).written).toBe(1);
    expect(await commit('2025-03-01', rows)).toEqual({ written: 0 });
    const keys: string[] = [];
    for await (const info of objects.list('active/')) keys.push(info.key);
    expect(keys).toHaveLength(2);
  });

  it('rebuilds the observations from what it wrote', async () => {
    const objects = createFileObjectStore(dir);
    expect(await rebuildActiveFromArchive(objects)).toBeUndefined();
    const diff = diffSnapshot({ sessions: {} }, [session('a'), session('b')], T0, OPTS);
    await objectStoreRowSink(objects)('2025-03-01', diff.rows);
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

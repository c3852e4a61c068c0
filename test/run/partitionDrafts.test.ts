import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { historyWriter } from '../../lib/archive/parquet/historyWriter.ts';
import { readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import type { ArchiveRow, DraftRow } from '../../lib/archive/records/archiveRow.ts';
import { partitionOf } from '../../lib/archive/records/toArchiveRow.ts';
import { type DraftCandidate, PartitionDrafts } from '../../lib/archive/run/partitionDrafts.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { removeRunFolder } from '../../lib/foundation/process/runFolder.ts';
import { edgeCaseRows } from '../parquet/historyRows.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const template = edgeCaseRows()[0] as ArchiveRow;

/** Row `i` of partition `dt`: a distinct 128-bit id, started at noon of `dt`. */
function archiveRow(dt: string, i: number): ArchiveRow {
  const id = `${dt.replaceAll('-', '')}${String(i).padStart(24, '0')}`;
  return { ...template, record_id: id, session_id: id, start_time: new Date(`${dt}T12:00:00.000Z`) };
}

/** Row `i` of partition `dt` as a walk offers it: id and partition first, the row built on demand. */
function row(dt: string, i: number): DraftCandidate<DraftRow> {
  const built = archiveRow(dt, i);
  return { id: built.record_id, dt: partitionOf(built), draftRow: () => built };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-drafts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function committer(objects: MemoryObjectStore, state: MemoryStateStore, runId: string): PartitionCommitter {
  return new PartitionCommitter({
    objects,
    state,
    clock: new ManualClock('2026-11-20T12:00:00Z'),
    logger: silentLogger,
    runId,
    fence: 0,
    tmpDir: join(dir, runId),
  });
}

function drafts(c: PartitionCommitter, prefix: string, rowGroupSize = 100): PartitionDrafts<DraftRow> {
  return new PartitionDrafts(c, historyWriter(rowGroupSize), {
    tmpDir: join(dir, 'drafts'),
    prefix,
  });
}

async function published(objects: MemoryObjectStore, dt: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const o of objects.list(`history/dt=${dt}/`)) {
    ids.push(...(await readRecordIds((await objects.get(o.key)) as Uint8Array)));
  }
  return ids.sort();
}

describe('PartitionDrafts', () => {
  it("writes nothing once its run's folder is closed, and never makes that folder again", async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'closed'), 'walk-late');
    await removeRunFolder(join(dir, 'drafts'));
    await removeRunFolder(join(dir, 'closed'));
    const late = (async () => {
      for (let i = 0; i < 250; i++) await walk.add(row('2026-11-10', i));
      return walk.commitAll();
    })();
    await expect(late).rejects.toMatchObject({ code: 'INTERNAL' });
    await walk.discard();
    await expect(stat(join(dir, 'drafts'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(dir, 'closed'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await published(objects, '2026-11-10')).toEqual([]);
  });

  it('builds the row only of an id new to its partition: not for a repeat, not for a row archived before', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const built: string[] = [];
    const counted = (dt: string, i: number): DraftCandidate<DraftRow> => {
      const candidate = row(dt, i);
      const build = () => {
        built.push(candidate.id);
        return candidate.draftRow();
      };
      return { ...candidate, draftRow: build };
    };
    const first = drafts(committer(objects, state, 'run1'), 'walk-a');
    // Rows 0..49, each offered twice (a reshuffled server shows a row on several pages).
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i < 50; i++) await first.add(counted('2026-11-10', i));
    expect(built).toHaveLength(50);
    expect(new Set(built).size).toBe(50);
    expect(first.distinct).toBe(50);
    await first.commitAll();
    await first.discard();

    // A rescan: rows 0..59, of which 0..49 are archived. Only the ten new rows are built.
    built.length = 0;
    const second = drafts(committer(objects, state, 'run2'), 'walk-b');
    for (let i = 0; i < 60; i++) await second.add(counted('2026-11-10', i));
    expect(built.sort()).toEqual(Array.from({ length: 10 }, (_, k) => row('2026-11-10', 50 + k).id).sort());
    expect(second.distinct).toBe(60);
    expect(await second.commitAll()).toMatchObject({ newRecords: 10, files: 1 });
    await second.discard();
  });

  it('writes each partition while rows arrive and commits each row once, skipping what is archived', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const first = drafts(committer(objects, state, 'run1'), 'walk-a');
    // 250 rows in row groups of 100: two groups reach the draft files before the commit.
    for (let i = 0; i < 250; i++) await first.add(row(i % 5 === 0 ? '2026-11-09' : '2026-11-10', i));
    expect(first.rows).toBe(250);
    expect(await first.commitAll()).toMatchObject({ newRecords: 250, files: 2 });
    await first.discard();
    expect(await readdir(join(dir, 'drafts'))).toEqual([]);

    // A later walk sees the same rows plus ten new ones: only the new ones are written.
    const second = drafts(committer(objects, state, 'run2'), 'walk-b');
    for (let i = 0; i < 260; i++) await second.add(row('2026-11-10', i));
    expect(second.rows).toBe(60);
    expect(await second.commitAll()).toMatchObject({ newRecords: 60, files: 1 });
    await second.discard();
    const day10 = await published(objects, '2026-11-10');
    expect(day10).toHaveLength(260);
    expect(new Set(day10).size).toBe(260);
  });

  it('a prepared partition takes rows while its archived ids are read back, and writes only the new ones', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const first = drafts(committer(objects, state, 'run1'), 'walk-a');
    for (let i = 0; i < 50; i++) await first.add(row('2026-11-10', i));
    await first.commitAll();
    await first.discard();

    const second = drafts(committer(objects, state, 'run2'), 'walk-b');
    second.prepare('2026-11-10');
    // The read back has not answered yet: no row makes the walk wait.
    const waits = Array.from({ length: 60 }, (_, i) => second.add(row('2026-11-10', i)));
    expect(waits.filter((w) => w !== undefined)).toEqual([]);
    expect(second.distinct).toBe(60);
    expect(await second.commitAll()).toMatchObject({ newRecords: 10, files: 1 });
    await second.discard();
    const day10 = await published(objects, '2026-11-10');
    expect(day10).toEqual(Array.from({ length: 60 }, (_, i) => row('2026-11-10', i).id).sort());
  });

  it('gives the event loop turns while it writes the rows that waited for the archived ids', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a', 10_000);
    walk.prepare('2026-11-10');
    let built = 0;
    for (let i = 0; i < 2_000; i++) {
      const candidate = row('2026-11-10', i);
      walk.add({
        ...candidate,
        draftRow: () => {
          built++;
          return candidate.draftRow();
        },
      });
    }
    // What an answer arriving meanwhile would see: how many rows were written when the loop got its turns
    // (the first row waits for its file to be made, the others follow it).
    const seen: number[] = [];
    let committed = false;
    const look = (): void => {
      seen.push(built);
      if (!committed) setImmediate(look);
    };
    setImmediate(look);
    expect(await walk.commitAll()).toMatchObject({ newRecords: 2_000 });
    committed = true;
    await walk.discard();
    expect(seen.filter((n) => n > 1 && n < 2_000).length).toBeGreaterThanOrEqual(3);
    expect(await published(objects, '2026-11-10')).toHaveLength(2_000);
  });

  it('rewrites a draft without the rows a concurrent writer committed meanwhile', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a', 4);
    for (let i = 0; i < 10; i++) await walk.add(row('2026-11-10', i));
    // Another writer commits rows 5..14 after the draft opened, before it commits.
    const other = committer(objects, state, 'run2');
    const rows = Array.from({ length: 10 }, (_, k) => archiveRow('2026-11-10', 5 + k));
    const ids = new Set(rows.map((r) => r.record_id));
    await other.commit(historyWriter(100), '2026-11-10', ids, async function* () {
      for (const r of rows) yield [r.record_id, r] as const;
    });
    expect(await walk.commitAll()).toMatchObject({ newRecords: 5, files: 1 });
    await walk.discard();
    const all = await published(objects, '2026-11-10');
    expect(all).toEqual(Array.from({ length: 15 }, (_, i) => row('2026-11-10', i).id).sort());
  });

  it("sizes a partition's id set from the server's total once, capping absurd totals", async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a');
    walk.expect('2026-11-10', 100_000);
    walk.expect('2026-11-11', 1e15);
    await walk.add(row('2026-11-10', 1));
    // 100k ids at most 70% full: about 143k slots of 17 bytes, allocated once.
    const slots = (n: number) => Math.ceil((Math.ceil(n / 0.7) + 1) / 16) * 16;
    expect(walk.idBytes).toBe(slots(100_000) * 17);
    // An absurd total is capped at 2M ids.
    await walk.add(row('2026-11-11', 1));
    expect(walk.idBytes).toBe(slots(100_000) * 17 + slots(2_000_000) * 17);
    await walk.discard();
  });

  it("keeps one id set a partition when its file is committed at the end: the file's ids are those seen less those archived", async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const before = drafts(committer(objects, state, 'run0'), 'walk-0');
    for (let i = 0; i < 300; i++) await before.add(row('2026-11-10', i));
    await before.commitAll();
    await before.discard();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a', 1_000);
    walk.expect('2026-11-10', 20_000);
    for (let i = 0; i < 20_000; i++) await walk.add(row('2026-11-10', i));
    // The set sized for the day's total, and no second set growing beside it as the rows are written.
    const slots = (n: number) => Math.ceil((Math.ceil(n / 0.7) + 1) / 16) * 16;
    expect(walk.idBytes).toBe(slots(20_000) * 17);
    expect(await walk.commitAll()).toMatchObject({ newRecords: 19_700, files: 1 });
    await walk.discard();
    const all = await published(objects, '2026-11-10');
    expect(all).toEqual(Array.from({ length: 20_000 }, (_, i) => row('2026-11-10', i).id).sort());
  });

  it('discards: no draft file is left and nothing is committed', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a', 4);
    for (let i = 0; i < 10; i++) await walk.add(row('2026-11-10', i));
    expect((await readdir(join(dir, 'drafts'))).length).toBe(1);
    await walk.discard();
    expect(await readdir(join(dir, 'drafts'))).toEqual([]);
    expect(await published(objects, '2026-11-10')).toEqual([]);
    expect(await state.getPartition('2026-11-10')).toBeUndefined();
  });
});

describe('PartitionCommitter.archivedIds', () => {
  it('reads only the id column by ranges, and reads again a file that moved mid-read', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const walk = drafts(committer(objects, state, 'run1'), 'walk-a', 50);
    for (let i = 0; i < 200; i++) await walk.add(row('2026-11-10', i));
    await walk.commitAll();
    await walk.discard();

    const calls = { get: 0, ranges: 0, vanished: 0 };
    const watched = new Proxy(objects, {
      get(target, prop, receiver) {
        if (prop === 'get') {
          return (key: string) => {
            if (key.startsWith('history/')) calls.get++;
            return target.get(key);
          };
        }
        if (prop === 'getRange') {
          return (key: string, start: number, end: number) => {
            calls.ranges++;
            // The first read finds the object gone (published elsewhere meanwhile).
            if (calls.vanished === 0) {
              calls.vanished++;
              return Promise.resolve(undefined);
            }
            return target.getRange(key, start, end);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const fresh = new PartitionCommitter({
      objects: watched,
      state,
      clock: new ManualClock('2026-11-21T12:00:00Z'),
      logger: silentLogger,
      runId: 'run2',
      fence: 0,
      tmpDir: join(dir, 'run2'),
    });
    const ids = await fresh.archivedIds(historyWriter(100), '2026-11-10');
    expect(ids.size).toBe(200);
    for (let i = 0; i < 200; i++) expect(ids.has(row('2026-11-10', i).id)).toBe(true);
    expect(calls.get).toBe(0);
    expect(calls.vanished).toBe(1);
    expect(calls.ranges).toBeGreaterThan(2);
  });
});

describe("PartitionDrafts of a resumed walk, beside its own earlier runs' files", () => {
  const DT = '2026-11-10';
  /** File A: rows 0..99, the walk's own earlier run. File B: rows 100..149, another writer's. */
  async function partitionOfTwoWriters(objects: MemoryObjectStore, state: MemoryStateStore) {
    const own = drafts(committer(objects, state, 'run1'), 'walk-a');
    for (let i = 0; i < 100; i++) await own.add(row(DT, i));
    await own.commitAll();
    const other = drafts(committer(objects, state, 'run2'), 'walk-b');
    for (let i = 100; i < 150; i++) await other.add(row(DT, i));
    await other.commitAll();
    const [a, b] = (await state.getPartition(DT))?.files.map((f) => f.name) ?? [];
    if (!a || !b) throw new Error('two files expected');
    expect(own.committedFiles).toEqual([a]);
    return { a, b };
  }
  /** The object store, and the names of the data files read from it. */
  function reading(objects: MemoryObjectStore): { store: MemoryObjectStore; read: Set<string> } {
    const read = new Set<string>();
    const store = new Proxy(objects, {
      get(target, prop, receiver) {
        if (prop === 'get' || prop === 'getRange')
          return (key: string, ...rest: [number, number]) => {
            read.add(key.slice(key.lastIndexOf('/') + 1));
            return prop === 'get' ? target.get(key) : target.getRange(key, ...rest);
          };
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { store, read };
  }

  /**
   * The walk of file A resumed over the partition of two writers (`partitionOfTwoWriters`), its earlier ids
   * (A's) holding or not: its drafts, and the names of the data files it reads.
   */
  async function resumedWalk(holds: boolean) {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const { a, b } = await partitionOfTwoWriters(objects, state);
    const { store, read } = reading(objects);
    const resumed = new PartitionDrafts(committer(store, state, 'run3'), historyWriter(100), {
      tmpDir: join(dir, 'drafts'),
      prefix: 'walk-a',
      covered: { files: new Set([a]), holds: Promise.resolve(holds) },
    });
    resumed.prepare(DT);
    return { objects, state, a, b, read, resumed };
  }

  it("reads only the other writers' files when the walk's earlier ids hold, and commits each row once", async () => {
    const { objects, state, a, b, read, resumed } = await resumedWalk(true);
    // The walk drops the rows it carries (0..99): it offers the others, B's among them.
    for (let i = 100; i < 200; i++) await resumed.add(row(DT, i));
    await resumed.commitAll();
    expect(read.has(b)).toBe(true);
    expect(read.has(a)).toBe(false);
    expect(resumed.rows).toBe(50);
    const listed = (await state.getPartition(DT))?.files.map((f) => f.name) ?? [];
    expect(resumed.committedFiles).toEqual(listed.filter((n) => n !== a && n !== b));
    expect(await published(objects, DT)).toEqual(Array.from({ length: 200 }, (_, i) => row(DT, i).id).sort());
  });

  it("reads them all when the walk's earlier ids could not be read, and writes none of their rows", async () => {
    const { objects, a, b, read, resumed } = await resumedWalk(false);
    // Without its earlier ids, the walk offers every row again.
    for (let i = 0; i < 200; i++) await resumed.add(row(DT, i));
    // Rows A holds are dropped before they are written, not only by the commit's own check.
    expect(resumed.rows).toBe(50);
    await resumed.commitAll();
    expect(read.has(a) && read.has(b)).toBe(true);
    expect(await published(objects, DT)).toEqual(Array.from({ length: 200 }, (_, i) => row(DT, i).id).sort());
  });
});

describe('PartitionCommitter.knownIds with covered files', () => {
  it('skips reading them, and a later call without them reads them into the same set', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const own = drafts(committer(objects, state, 'run1'), 'walk-a');
    for (let i = 0; i < 30; i++) await own.add(row('2026-11-10', i));
    await own.commitAll();
    const other = drafts(committer(objects, state, 'run2'), 'walk-b');
    for (let i = 30; i < 40; i++) await other.add(row('2026-11-10', i));
    await other.commitAll();
    const [a] = own.committedFiles;
    if (!a) throw new Error('no file');
    const c = committer(objects, state, 'run3');
    const partial = await c.archivedIds(historyWriter(100), '2026-11-10', new Set([a]));
    expect(partial.size).toBe(10);
    expect(partial.has(row('2026-11-10', 0).id)).toBe(false);
    const whole = await c.archivedIds(historyWriter(100), '2026-11-10');
    expect(whole).toBe(partial);
    expect(whole.size).toBe(40);
  });
});

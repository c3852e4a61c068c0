import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import type { KeyedRecord } from '../../lib/archive/records/keyedRecord.ts';
import { CarriedRows, loadWalkIds, WalkIdParts, walkIdsKey } from '../../lib/archive/walk/carriedRows.ts';
import { addIdLines } from '../../lib/archive/walk/idLines.ts';
import { DistinctRows, type WalkSink, walkDay } from '../../lib/archive/walk/walkDay.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { IdSet } from '../../lib/foundation/ids/idSet.ts';
import { walkOptions } from '../support/walkOptions.ts';

const id = (n: number): string => n.toString(16).padStart(32, '0');
const record = (n: number): KeyedRecord => ({ id: id(n) }) as KeyedRecord;

/** A sink that keeps the ids it was handed, in order. */
function inner(): WalkSink & { taken: string[] } {
  const taken: string[] = [];
  return {
    taken,
    add: (r) => void taken.push(r.id),
    get distinct() {
      return taken.length;
    },
  };
}

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('CarriedRows', () => {
  it('keeps records waiting until the earlier ids arrive, then hands on, in order, those the earlier run did not take', async () => {
    const earlier = deferred<IdSet | undefined>();
    const to = inner();
    const sink = new CarriedRows(to, earlier.promise);
    for (const n of [5, 1, 7, 2, 7]) expect(sink.add(record(n))).toBeUndefined();
    expect(to.taken).toEqual([]);
    const ids = new IdSet();
    for (const n of [1, 2, 3]) ids.add(id(n));
    earlier.resolve(ids);
    await sink.settled();
    expect(to.taken).toEqual([id(5), id(7)]);
    // The union of both runs, each id once.
    expect(sink.distinct).toBe(5);
    expect(sink.lost).toBe(false);
    sink.add(record(3));
    sink.add(record(9));
    expect(to.taken).toEqual([id(5), id(7), id(9)]);
  });

  it('gives the event loop turns while it hands on the records that waited, and keeps their order', async () => {
    const earlier = deferred<IdSet | undefined>();
    const to = inner();
    const sink = new CarriedRows(to, earlier.promise);
    for (let n = 0; n < 2_000; n++) sink.add(record(n));
    earlier.resolve(new IdSet());
    // What an answer that arrived meanwhile would see: how many were handed on when the loop got its turns.
    const seen: number[] = [];
    const look = (): void => {
      seen.push(to.taken.length);
      if (to.taken.length < 2_000 && seen.length < 100) setImmediate(look);
    };
    setImmediate(look);
    // A record that arrives while they are handed on waits behind them.
    setImmediate(() => sink.add(record(5_000)));
    await sink.settled();
    expect(seen.filter((n) => n > 0 && n < 2_000).length).toBeGreaterThanOrEqual(3);
    expect(to.taken).toEqual([...Array.from({ length: 2_000 }, (_, n) => id(n)), id(5_000)]);
  });

  it('counts only its own records when the earlier ids cannot be read', async () => {
    const to = inner();
    const sink = new CarriedRows(to, Promise.resolve(undefined));
    sink.add(record(1));
    sink.add(record(1));
    await sink.settled();
    expect(sink.lost).toBe(true);
    expect(sink.distinct).toBe(1);
    expect(to.taken).toEqual([id(1)]);
  });

  it('fails where the walk waits when the store fails the read', async () => {
    const sink = new CarriedRows(inner(), Promise.reject(new Error('store down')));
    sink.add(record(1));
    await expect(sink.settled()).rejects.toThrow('store down');
  });

  it('lets a resumed walk send its first requests before the earlier ids arrive, and judges the day on the union', async () => {
    const day = '2026-11-10';
    const clock = new ManualClock('2026-11-20T12:00:00Z');
    const api = new ScriptedUpstream({
      clock,
      days: new Map([[day, dayOfRecords(day, 1000)]]),
      maxPageSize: 100,
      reshuffle: false,
    });
    const key = new Uint8Array(32).fill(3);
    // A first run takes pages 0-3 and is cut.
    const first = new CarriedRows(new DistinctRows(() => undefined));
    let cut = 0;
    const firstWalk = await walkDay(
      api,
      day,
      walkOptions(key, clock, {
        pageSize: 100,
        concurrency: 1,
        sink: first,
        budget: {
          endsAt: new Date(0),
          reserveMs: 0,
          keepMs: 0,
          stopAt: new Date(0),
          spent: () => ++cut > 4,
          signal: () => undefined,
          startCommit: () => () => undefined,
        },
      }),
    );
    expect(firstWalk.interrupted).toBe(true);
    const progress = firstWalk.progress;
    expect(progress?.nextPage).toBe(4);
    // The next run: the earlier ids are still on their way when its first requests go out.
    const earlier = deferred<IdSet | undefined>();
    const sink = new CarriedRows(new DistinctRows(() => undefined), earlier.promise);
    const before = api.requests.length;
    const walking = walkDay(
      api,
      day,
      walkOptions(key, clock, {
        pageSize: 100,
        concurrency: 2,
        sink,
        ...(progress ? { resume: progress } : {}),
      }),
    );
    while (api.requests.length === before) await new Promise(setImmediate);
    expect(api.requests[before]?.page).toBe(4);
    earlier.resolve(first.ids);
    const walk = await walking;
    expect(walk.complete).toBe(true);
    expect(walk.distinct).toBe(1000);
    // Only the pages the first run left (and the empty page that proves the end) were asked for again.
    expect(api.requests.slice(before).map((r) => r.page)).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('WalkIdParts', () => {
  const day = '2026-11-15';
  const idsOf = (set: IdSet | undefined) => [...(set ?? [])].sort();

  it('saves each run only the ids it added, and reads the union back from the parts the state records', async () => {
    const objects = new MemoryObjectStore();
    // The first run: part 0 as it goes, then part 1 at the cut.
    const first = new CarriedRows(inner());
    const firstParts = new WalkIdParts(objects, day, first, undefined);
    for (let n = 0; n < 3; n++) first.add(record(n));
    await firstParts.save();
    first.add(record(3));
    await firstParts.save(true);
    expect(firstParts.parts).toBe(1);
    // The second run resumes after part 1: it saves parts 2 and 3, holding only the ids it added.
    const second = new CarriedRows(inner(), loadWalkIds(objects, day, firstParts.parts));
    await second.settled();
    const secondParts = new WalkIdParts(objects, day, second, firstParts.parts);
    for (const n of [2, 3, 4, 5]) second.add(record(n));
    await secondParts.save();
    second.add(record(6));
    await secondParts.save(true);
    expect(secondParts.parts).toBe(3);
    expect(idsOf(await loadWalkIds(objects, day, 2))).toEqual([0, 1, 2, 3, 4, 5].map(id));
    expect(idsOf(await loadWalkIds(objects, day, 3))).toEqual([0, 1, 2, 3, 4, 5, 6].map(id));
    // Part 3 holds only what the second run added after part 2.
    expect(idsOf(await loadWalkIds(objects, day, 0))).toEqual([0, 1, 2].map(id));
    const part3 = new IdSet();
    await addIdLines((await objects.get(walkIdsKey(day, 3))) as Uint8Array, part3);
    expect(idsOf(part3)).toEqual([id(6)]);
    // A part the state does not record is not read; a missing one makes the ids unreadable (none).
    expect(await loadWalkIds(objects, day, 4)).toBeUndefined();
  });

  it('a run that could not read the earlier ids starts again at part 0 with all it holds', async () => {
    const objects = new MemoryObjectStore();
    const sink = new CarriedRows(inner(), Promise.resolve(undefined));
    await sink.settled();
    const parts = new WalkIdParts(objects, day, sink, 4);
    for (const n of [7, 8]) sink.add(record(n));
    await parts.save(true);
    expect(parts.parts).toBe(0);
    expect(idsOf(await loadWalkIds(objects, day, 0))).toEqual([7, 8].map(id));
  });

  it('reads the earlier ids into a set made for the day, which the resumed walk fills to the day without growing', async () => {
    const objects = new MemoryObjectStore();
    const first = new CarriedRows(inner());
    const parts = new WalkIdParts(objects, day, first, undefined);
    for (let n = 0; n < 3_000; n++) first.add(record(n));
    await parts.save(true);
    const ids = (await loadWalkIds(objects, day, 0, 20_000)) as IdSet;
    expect(ids.size).toBe(3_000);
    const made = ids.byteLength;
    const resumed = new CarriedRows(inner(), ids);
    for (let n = 3_000; n < 20_000; n++) resumed.add(record(n));
    expect(resumed.distinct).toBe(20_000);
    expect(ids.byteLength).toBe(made);
    // Without the day's size, the same read makes a set for what it read, which grows as the walk adds.
    expect((await loadWalkIds(objects, day, 0))?.byteLength).toBeLessThan(made);
  });
});

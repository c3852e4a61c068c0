import { afterEach, describe, expect, it } from 'vitest';
import { runningParquetWorker } from '../../lib/archive/parquet/parquetWorkerClient.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { archivedIds, startWorld, TEST_OPTIONS, TEST_TOKEN_KEY, type World } from '../support/engineKit.ts';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A world whose every day is heavy (`perDay` sessions), served `pageCap` rows a page. */
function heavyWorld(perDay: [number, number], pageCap: number): Promise<World> {
  return startWorld({
    dataset: { heavyEveryDays: 1, heavyMin: perDay[0], heavyMax: perDay[1], lateRate: 0 },
    maxPageSize: pageCap,
  });
}

describe('runArchive with PARQUET_ENCODER=worker (and inline, where the deadline cuts a walk)', () => {
  it('archives heavy days (several chunks per partition, shuffled pages) exactly once, and a rerun adds nothing', async () => {
    world = await heavyWorld([2_600, 3_400], 700);
    const w = world;
    const today = toDay(w.clock.now());
    const days = [addDays(today, -5), addDays(today, -4)];
    const options = { ...TEST_OPTIONS, onlyDays: days, parquetEncoder: 'worker' as const };
    const first = await runArchive(w.deps(), options);
    expect(first.failedDays).toEqual([]);
    const expected = new Set<string>();
    for (const d of days) for (const r of w.emulator.truth(d)) expected.add(recordId(r, TEST_TOKEN_KEY));
    expect(expected.size).toBeGreaterThan(5_000);
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    // Sessions of a day may start the day before: compare the union, partition by partition as written.
    expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
    expect(first.recordsNew).toBe(expected.size);

    const second = await runArchive(w.deps(), options);
    expect(second.recordsNew).toBe(0);
    expect((await archivedIds(w.objects)).total).toBe(expected.size);
  });

  // The worker is the CLI's default encoder: its death mid-run (a crash, an out-of-memory kill of the
  // thread) must cost only the day it was encoding, recorded as failed, and never a record.
  it('records the day whose worker died as failed, goes on with the next day, and a rerun completes it exactly once', async () => {
    world = await heavyWorld([3_000, 3_000], 500);
    const w = world;
    const today = toDay(w.clock.now());
    const days = [addDays(today, -6), addDays(today, -5)];
    const options = { ...TEST_OPTIONS, onlyDays: days, parquetEncoder: 'worker' as const, dayConcurrency: 1 };
    // Twenty pages into the first day (of about fifty: the walk passes over shuffled pages, and more
    // than 1,024 of its rows are already with the worker), the worker dies.
    let pages = 0;
    let killed: ReturnType<typeof runningParquetWorker>;
    const api = new Proxy(w.api, {
      get(target, prop, receiver) {
        if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.historyPage>) => {
          if (++pages === 20) {
            killed = runningParquetWorker();
            await killed?.terminate();
          }
          return target.historyPage(...args);
        };
      },
    });
    const first = await runArchive({ ...w.deps(), api }, options);
    expect(killed).toBeDefined();
    expect(killed?.alive).toBe(false);
    // The day it was encoding failed; the other day, encoded by a new worker, did not.
    expect(first.failedDays.map((f) => f.day)).toEqual([days[0]]);
    expect(first.days.find((d) => d.day === days[1])).toMatchObject({ complete: true });

    const second = await runArchive(w.deps(), options);
    expect(second.failedDays).toEqual([]);
    const expected = new Set<string>();
    for (const d of days) for (const r of w.emulator.truth(d)) expected.add(recordId(r, TEST_TOKEN_KEY));
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
    expect(first.recordsNew + second.recordsNew).toBe(expected.size);
  });

  // Pages are fetched two at a time: the deadline strikes one fetch while the other page's rows are still
  // being added. The walk must let them finish before the drafts are committed (it once committed a draft
  // whose rows and ids disagreed, and the day failed with INTERNAL instead of keeping what it held).
  it.each(['worker', 'inline'] as const)(
    '%s encoder: commits what a walk cut short by the deadline holds, and the next run completes the day exactly once',
    async (encoder) => {
      world = await heavyWorld([5_000, 5_000], 500);
      const w = world;
      const day = addDays(toDay(w.clock.now()), -6);
      const options = { ...TEST_OPTIONS, onlyDays: [day], parquetEncoder: encoder };
      // The deadline strikes after 8 pages (several chunks already with the worker).
      let pages = 0;
      const api = new Proxy(w.api, {
        get(target, prop, receiver) {
          if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
          return async (...args: Parameters<typeof target.historyPage>) => {
            if (++pages > 8) throw new ArchiverError('DEADLINE', 'aborted (deadline)');
            return target.historyPage(...args);
          };
        },
      });
      const cut = await runArchive({ ...w.deps(), api }, options);
      expect(cut.failedDays).toEqual([]);
      expect(cut.days[0]).toMatchObject({ day, interrupted: true });
      const held = cut.recordsNew;
      expect(held).toBeGreaterThan(2 * 1024);
      expect((await archivedIds(w.objects)).total).toBe(held);

      const rest = await runArchive(w.deps(), options);
      expect(rest.failedDays).toEqual([]);
      const expected = new Set(w.emulator.truth(day).map((r) => recordId(r, TEST_TOKEN_KEY)));
      const archive = await archivedIds(w.objects);
      expect(archive.total).toBe(archive.distinct);
      expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
      expect(held + rest.recordsNew).toBe(expected.size);
    },
    120_000,
  );

  // A resumed walk's first commit must not be the one that starts a cold worker: its time sets what the run
  // keeps before its deadline for the rest of the run.
  it.each(['worker', 'inline'] as const)(
    '%s encoder: a walk resumed after a cut has the encoding worker started (worker only) before it asks for its first page, and completes the day exactly once',
    async (encoder) => {
      world = await heavyWorld([5_000, 5_000], 500);
      const w = world;
      const day = addDays(toDay(w.clock.now()), -6);
      // A deadline far off: the walk remembers its ids, so the cut below leaves it to the next run.
      const budget = () => deadlineBudget(w.clock, new Date(w.clock.now().getTime() + 3_600_000), 0);
      const options = { ...TEST_OPTIONS, onlyDays: [day], parquetEncoder: encoder };
      let pages = 0;
      let resumed = false;
      let workerAtFirstPage: boolean | undefined;
      const api = new Proxy(w.api, {
        get(target, prop, receiver) {
          if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
          return async (...args: Parameters<typeof target.historyPage>) => {
            // The first run is cut after 8 pages of the day (the budget aborts a request the same way).
            if (args[0] === day && ++pages > 8 && !resumed)
              throw new ArchiverError('DEADLINE', 'aborted (deadline)');
            return target.historyPage(...args);
          };
        },
      });
      const cut = await runArchive({ ...w.deps(), api }, { ...options, budget: budget() });
      expect(cut.days[0]).toMatchObject({ day, interrupted: true });
      // The next run starts with no worker in the process, as a scheduled run does.
      await runningParquetWorker()?.terminate();
      resumed = true;
      // The run sends the resumed pass's next pages ahead, beside its preflight and before its lease (see
      // preflightOverlap); the walk's own first request is the day's first one under the lease.
      let leased = false;
      let pagesAhead = 0;
      const resumedApi = new Proxy(api, {
        get(target, prop, receiver) {
          if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
          return (...args: Parameters<typeof target.historyPage>) => {
            if (args[0] === day && !leased) pagesAhead++;
            if (args[0] === day && leased) workerAtFirstPage ??= runningParquetWorker()?.alive ?? false;
            return target.historyPage(...args);
          };
        },
      });
      const deps = w.deps();
      const state = new Proxy(deps.state, {
        get(target, prop, receiver) {
          if (prop !== 'acquireLease') return Reflect.get(target, prop, receiver);
          return async (...args: Parameters<typeof target.acquireLease>) => {
            const lease = await target.acquireLease(...args);
            leased = true;
            return lease;
          };
        },
      });
      const rest = await runArchive({ ...deps, state, api: resumedApi }, { ...options, budget: budget() });
      expect(rest.days[0]?.resumedAt).toBeDefined();
      expect(workerAtFirstPage).toBe(encoder === 'worker');
      // ...and its first pages had gone out before it, beside the preflight.
      expect(pagesAhead).toBeGreaterThan(0);
      expect(rest.failedDays).toEqual([]);
      const expected = new Set(w.emulator.truth(day).map((r) => recordId(r, TEST_TOKEN_KEY)));
      const archive = await archivedIds(w.objects);
      expect(archive.total).toBe(archive.distinct);
      expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
      expect(cut.recordsNew + rest.recordsNew).toBe(expected.size);
    },
    120_000,
  );
});

import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { blankDay } from '../../lib/archive/days/nextDayState.ts';
import { SNAPSHOT_BESIDE_DAYS_MAX } from '../../lib/archive/run/prepareRun.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { session } from '../active/activeKit.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

/** A state whose META read answers only after a few turns of the event loop, noting what was asked meanwhile. */
function slowMetaState(api: ScriptedUpstream): { state: MemoryStateStore; askedDuringMetaRead: number[] } {
  const state = new MemoryStateStore();
  const askedDuringMetaRead: number[] = [];
  const getMeta = state.getMeta.bind(state);
  state.getMeta = async () => {
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    askedDuringMetaRead.push(api.requests.length);
    return getMeta();
  };
  return { state, askedDuringMetaRead };
}

describe('the preflight of a run', () => {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const day: Day = addDays(toDay(clock.now()), -2);
  const options = { ...TEST_OPTIONS, onlyDays: [day], snapshotActive: false };

  it('is asked for while the state is read, not after (its latency hides under the reads)', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    const { state, askedDuringMetaRead } = slowMetaState(api);
    const summary = await runArchive(
      testDeps({ api, objects: new MemoryObjectStore(), state, clock }),
      options,
    );
    expect(askedDuringMetaRead[0]).toBe(1);
    expect(api.requests[0]).toMatchObject({ day: toDay(clock.now()), page: 0, size: 1 });
    expect(summary.recordsNew).toBe(30);
  });

  it('sends the active list beside the preflight; the snapshot observes it when it arrived', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    let preflightAnswered = false;
    let listedBeforePreflightAnswered: boolean | undefined;
    const history = api.historyPage.bind(api);
    api.historyPage = async (...args) => {
      const page = await history(...args);
      if (args[3] === 1) preflightAnswered = true;
      return page;
    };
    let arrived: string | undefined;
    api.listActive = async () => {
      listedBeforePreflightAnswered = !preflightAnswered;
      arrived = clock.now().toISOString();
      return [session('s1', { port: 10_001 })];
    };
    const { state } = slowMetaState(api);
    // What the run does before its snapshot (reading the state here) takes a minute of the clock.
    const getMeta = state.getMeta.bind(state);
    state.getMeta = async () => {
      const meta = await getMeta();
      clock.advance(60_000);
      return meta;
    };
    const summary = await runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
      ...TEST_OPTIONS,
      onlyDays: [day],
    });
    expect(listedBeforePreflightAnswered).toBe(true);
    expect(summary.active).toMatchObject({ listed: 1 });
    expect(summary.recordsNew).toBe(30);
    expect(arrived).toBeDefined();
    expect((await state.getActiveState())?.lastSnapshotAt).toBe(arrived);
  });

  it.each([
    ['a small active list is snapshotted beside the first day', 3, true],
    [
      'a big active list is snapshotted before the first day (its memory is not stacked on a walk)',
      SNAPSHOT_BESIDE_DAYS_MAX + 1,
      false,
    ],
  ])('%s', async (_what, sessions, besideTheDay) => {
    // Three pages: 0 and 1 are sent ahead of any walk (beside the preflight), page 2 only by the walk.
    const days = new Map([[day, dayOfRecords(day, 5000)]]);
    const api = new ScriptedUpstream({ clock, days, seed: 1, reshuffle: false });
    api.listActive = async () =>
      Array.from({ length: sessions }, (_, i) => session(`s${i}`, { port: 10_000 + (i % 50_000) }));
    const state = new MemoryStateStore();
    // The active manifest's write is held until the test has looked at the history requests.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let pagesWhileHeld: number | undefined;
    const put = state.putPartition.bind(state);
    state.putPartition = async (manifest) => {
      if (manifest.dataset === 'active' && pagesWhileHeld === undefined) {
        for (let i = 0; i < 50; i++) await new Promise(setImmediate);
        pagesWhileHeld = api.requests.filter((r) => r.size !== 1 && r.page >= 2).length;
        release();
      }
      await held;
      return put(manifest);
    };
    const summary = await runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
      ...TEST_OPTIONS,
      onlyDays: [day],
    });
    expect(summary.active).toMatchObject({ listed: sessions });
    expect(summary.recordsNew).toBe(5000);
    if (besideTheDay) expect(pagesWhileHeld).toBeGreaterThan(0);
    else expect(pagesWhileHeld).toBe(0);
  });

  it('sends the first pages of the first day beside the preflight, before the lease; the walk takes them', async () => {
    const days = new Map([[day, dayOfRecords(day, 2500)]]);
    const api = new ScriptedUpstream({ clock, days, seed: 1, reshuffle: false });
    const state = new MemoryStateStore();
    let beforeLease: string[] | undefined;
    const acquire = state.acquireLease.bind(state);
    state.acquireLease = async (...args) => {
      beforeLease ??= api.requests.map((r) => `${r.day} ${r.page}/${r.size}`);
      return acquire(...args);
    };
    const summary = await runArchive(
      testDeps({ api, objects: new MemoryObjectStore(), state, clock }),
      options,
    );
    const size = TEST_OPTIONS.pageSize;
    expect(beforeLease).toEqual(expect.arrayContaining([`${day} 0/${size}`, `${day} 1/${size}`]));
    // Each page once: the walk asked for nothing it had been sent ahead.
    expect(api.requests.filter((r) => r.day === day).map((r) => `${r.page}/${r.size}`)).toEqual([
      `0/${size}`,
      `1/${size}`,
    ]);
    expect(summary.recordsNew).toBe(2500);
  });

  it('drops the pages sent ahead when the plan under the lease starts with another day: at most those requests spent', async () => {
    const today = toDay(clock.now());
    const oldest = addDays(today, -59);
    const next = addDays(today, -58);
    const days = new Map([
      [oldest, dayOfRecords(oldest, 40)],
      [next, dayOfRecords(next, 30)],
    ]);
    const api = new ScriptedUpstream({ clock, days, seed: 1 });
    const state = new MemoryStateStore();
    // Between the plan read ahead and the lease, another run seals the oldest day.
    const acquire = state.acquireLease.bind(state);
    state.acquireLease = async (...args) => {
      await state.putDay({ ...blankDay(oldest), sealed: true, scannedAges: [59] });
      return acquire(...args);
    };
    const objects = new MemoryObjectStore();
    const summary = await runArchive(testDeps({ api, objects, state, clock }), {
      ...TEST_OPTIONS,
      snapshotActive: false,
    });
    const spent = api.requests.filter((r) => r.day === oldest);
    expect(spent.length).toBeGreaterThan(0);
    expect(spent.length).toBeLessThanOrEqual(2);
    expect(summary.days.map((d) => d.day)).not.toContain(oldest);
    expect(summary.recordsNew).toBe(30);
  });

  it.each([
    ['within the planned pages: its next pages, then the rest of them', 2, 5, ['2/10', '3/10', '4/10']],
    ['the last planned page: that page alone', 4, 5, ['4/10']],
    ['past the planned pages: the next page alone (the walk goes one at a time)', 6, 5, ['6/10']],
  ])(
    'sends a resumed pass %s, at the pass size, before the lease; the walk takes them',
    async (_what, nextPage, planned, ahead) => {
      // 60 rows in pages of 10: the earlier run absorbed the pages before `nextPage` (their rows are its ids).
      const rows = dayOfRecords(day, 60);
      const api = new ScriptedUpstream({ clock, days: new Map([[day, rows]]), seed: 1, reshuffle: false });
      const state = new MemoryStateStore();
      const progress = {
        passes: 1,
        nextPage,
        size: 10,
        planned,
        totals: [planned * 10],
        observed: 0,
        stalled: 0,
        passStart: 0,
        pages: nextPage,
      };
      await state.putDay({ ...blankDay(day), walk: progress });
      let beforeLease: string[] | undefined;
      const acquire = state.acquireLease.bind(state);
      state.acquireLease = async (...args) => {
        beforeLease ??= api.requests.filter((r) => r.day === day).map((r) => `${r.page}/${r.size}`);
        return acquire(...args);
      };
      const summary = await runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
        ...options,
        pageConcurrency: 2,
      });
      // Two at a time, each answer sending the next: this stand-in answers at once, so all of them are
      // sent before the lease.
      expect(beforeLease).toEqual(ahead);
      // Each page sent ahead was taken by the walk: none of them was asked for again.
      const asked = api.requests.filter((r) => r.day === day).map((r) => `${r.page}/${r.size}`);
      for (const page of ahead) expect(asked.filter((a) => a === page)).toHaveLength(1);
      expect(summary.recordsNew).toBe(60);
    },
  );

  it('sends nothing ahead in a steady run, and reads no day state before the lease', async () => {
    const today = toDay(clock.now());
    const days = new Map([[today, dayOfRecords(today, 30)]]);
    const api = new ScriptedUpstream({ clock, days, seed: 1 });
    const state = new MemoryStateStore();
    const objects = new MemoryObjectStore();
    const run = { ...TEST_OPTIONS, snapshotActive: false };
    await runArchive(testDeps({ api, objects, state, clock }), run);
    // The next run: its first day comes from the state, read under the lease only.
    days.set(today, dayOfRecords(today, 45));
    clock.advance(86_400_000);
    const asked = api.requests.length;
    let dayReads = 0;
    let beforeLease: { pages: number; dayReads: number } | undefined;
    for (const read of ['getDay', 'getDays', 'listDays'] as const) {
      const original = (state[read] as (...a: unknown[]) => Promise<unknown>).bind(state);
      (state as unknown as Record<string, unknown>)[read] = (...a: unknown[]) => {
        dayReads++;
        return original(...a);
      };
    }
    const acquire = state.acquireLease.bind(state);
    state.acquireLease = async (...args) => {
      beforeLease ??= { pages: api.requests.slice(asked).filter((r) => r.size !== 1).length, dayReads };
      return acquire(...args);
    };
    const summary = await runArchive(testDeps({ api, objects, state, clock }), run);
    expect(beforeLease).toEqual({ pages: 0, dayReads: 0 });
    expect(summary.recordsNew).toBe(15);
  });

  it('fails at once with the preflight: the pages sent ahead are aborted, not waited for', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    const pagesAborted: boolean[] = [];
    api.historyPage = async (_from, _to, _page, size, o) => {
      if (size === 1) throw new ArchiverError('UPSTREAM_UNAVAILABLE', '503 after every retry');
      // A page that would go on retrying for as long as its signal lets it.
      return new Promise((_resolve, reject) => {
        o?.signal?.addEventListener('abort', () => {
          pagesAborted.push(true);
          reject(new ArchiverError('DEADLINE', 'aborted'));
        });
      });
    };
    const state = new MemoryStateStore();
    await expect(
      runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), options),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(pagesAborted.length).toBeGreaterThan(0);
    expect(await state.getMeta()).toBeUndefined();
  });

  it('still refuses a rejected key before anything new is written', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    api.historyPage = async () => {
      throw new ArchiverError('AUTH_REJECTED', '401');
    };
    const objects = new MemoryObjectStore();
    const { state } = slowMetaState(api);
    await expect(runArchive(testDeps({ api, objects, state, clock }), options)).rejects.toMatchObject({
      code: 'AUTH_REJECTED',
    });
    expect(await state.getMeta()).toBeUndefined();
    const written: string[] = [];
    for await (const o of objects.list('')) written.push(o.key);
    expect(written).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { DayResult } from '../../lib/archive/run/runTypes.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { expectIdsExact, TEST_OPTIONS, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { timedStore } from '../support/fakes/timedStore.ts';

const CAP = 100;
const PAGE_MS = 20;
const MAX_RUN_MS = 6_000;
const RESERVE_MS = 500;

/**
 * Runs cut by a 6 s budget with a 500 ms reserve, on a clock that only the server's pages (20 ms each) and
 * the stores' calls move: every upload and put takes `msAKiB` ms a KiB it carries (a commit's time follows
 * its size), every state write 5 ms. A run's rows of a few seconds take longer to commit than the reserve,
 * and the ids of a day grow with it: committed after the cut all at once, they would end the run late.
 */
async function runsOfDay(rows: number, msAKiB: number) {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const day: Day = addDays(toDay(clock.now()), -5);
  const records = dayOfRecords(day, rows);
  const api = new ScriptedUpstream({
    clock,
    days: new Map([[day, records]]),
    maxPageSize: CAP,
    reshuffle: false,
    beforeRequest: (d) => {
      if (d === day) clock.advance(PAGE_MS);
    },
  });
  const bytes = (b: number) => (b / 1024) * msAKiB;
  const memory = new MemoryObjectStore();
  const objects = timedStore(memory, clock, { put: bytes, putFile: bytes, publish: () => 5 });
  const state = timedStore(new MemoryStateStore(), clock, {
    putDay: () => 5,
    putPartition: () => 5,
    putMeta: () => 5,
  });
  const runs: { result: DayResult | undefined; endsAt: number; endedAt: number }[] = [];
  while (runs.length < 12 && !(await state.getDay(day))?.complete) {
    clock.set(new Date(Date.parse('2026-11-20T06:00:00.000Z') + runs.length * 6 * 3_600_000));
    const budget = deadlineBudget(clock, new Date(clock.now().getTime() + MAX_RUN_MS), RESERVE_MS);
    const summary = await runArchive(testDeps({ api, objects, state, clock }), {
      ...TEST_OPTIONS,
      pageSize: CAP,
      pageConcurrency: 1,
      maxPagesPerDay: rows / CAP + 10,
      onlyDays: [day],
      snapshotActive: false,
      budget,
    });
    runs.push({
      result: summary.days.find((d) => d.day === day),
      endsAt: budget.endsAt?.getTime() ?? 0,
      endedAt: clock.now().getTime(),
    });
  }
  const truth = new Set(records.map((r) => recordId(r as never, TEST_TOKEN_KEY)));
  return { runs, objects: memory, truth };
}

describe('a run under a deadline, with commits slower than its reserve', () => {
  // Rows, ms a KiB, the least share of the bound's pages a cut run fetches. At 2 ms a KiB, what the walk
  // fetches in the reserve's time takes longer than the reserve to commit: only what the run learned
  // from its own commits keeps it in time.
  it.each([
    [30_000, 0.6, 0.5],
    [90_000, 0.6, 0.5],
    [30_000, 2, 0.25],
  ])(
    'a %i-row day, %f ms a KiB stored: every run ends by its deadline, fetches for at least %f of it, and the day is archived once',
    async (rows, msAKiB, share) => {
      const { runs, objects, truth } = await runsOfDay(rows, msAKiB);
      expect(runs.at(-1)?.result?.complete).toBe(true);
      for (const [i, run] of runs.entries())
        expect(run.endedAt, `run ${i + 1} ends by its deadline`).toBeLessThanOrEqual(run.endsAt);
      // Cut runs still fetch their share of what the budget allows at 20 ms a page (their commits take
      // simulated time too, on the same clock).
      const bound = (MAX_RUN_MS - RESERVE_MS) / PAGE_MS;
      for (const run of runs.filter((r) => r.result?.interrupted))
        expect(run.result?.pagesThisRun ?? 0).toBeGreaterThanOrEqual(share * bound);
      await expectIdsExact(objects, truth);
    },
    120_000,
  );
});

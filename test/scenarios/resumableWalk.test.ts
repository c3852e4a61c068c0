import { describe, expect, it } from 'vitest';
import { FaultPlan } from '../../devkit/fakes/faultPlan.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { ArchiveOptions } from '../../lib/archive/run/runTypes.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { archivedIds, TEST_OPTIONS, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { seededRandom, testSeed } from '../support/testSeed.ts';

const PAGES = 30;
const PER_PAGE = 10;
/** What one run's budget covers: about a third of the day's pages. */
const BUDGET_PAGES = 11;

/**
 * One big day behind a server that caps pages at 10, and runs whose budget covers a third of its pages:
 * each run's API stops answering (DEADLINE, as the deadline's abort does) after BUDGET_PAGES pages.
 */
function world(reshuffle: boolean, seed: number) {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const day: Day = addDays(toDay(clock.now()), -5);
  const records = dayOfRecords(day, PAGES * PER_PAGE, 1_000);
  const api = new ScriptedUpstream({
    clock,
    days: new Map([[day, records]]),
    maxPageSize: PER_PAGE,
    reshuffle,
    seed,
  });
  const faults = FaultPlan.none();
  const state = new MemoryStateStore({ faults });
  const objects = new MemoryObjectStore({ faults });
  const truth = new Set(records.map((r) => recordId(historyRecordSchema.parse(r), TEST_TOKEN_KEY)));
  const budgeted = (): UpstreamApi => {
    let pages = 0;
    return {
      listActive: (o) => api.listActive(o),
      historyPage: async (...args) => {
        if (++pages > BUDGET_PAGES) throw new ArchiverError('DEADLINE', 'aborted (deadline)');
        return api.historyPage(...args);
      },
    };
  };
  const options: ArchiveOptions = {
    ...TEST_OPTIONS,
    pageSize: 100,
    onlyDays: [day],
    // A deadline far off: the budget above cuts the walks; the deadline only arms the walk's bookkeeping.
    budget: deadlineBudget(clock, new Date(clock.now().getTime() + 3_600_000), 0),
  };
  const run = () => runArchive(testDeps({ api: budgeted(), objects, state, clock }), options);
  return { day, clock, state, objects, faults, truth, run };
}

async function exact(w: ReturnType<typeof world>): Promise<void> {
  const archive = await archivedIds(w.objects);
  expect(archive.total, 'nothing twice').toBe(archive.distinct);
  expect(new Set([...archive.byDt.values()].flat())).toEqual(w.truth);
}

describe('walks that resume across runs', () => {
  it('stable order: a day three budgets long is complete within 4 runs, each going on where the last stopped', async () => {
    const w = world(false, 1);
    let runs = 0;
    while (!(await w.state.getDay(w.day))?.complete && runs < 10) {
      await w.run();
      runs++;
      w.clock.advance(60_000);
    }
    expect(runs).toBeLessThanOrEqual(4);
    expect(await w.state.getDay(w.day)).toMatchObject({ complete: true, scannedAges: [5] });
    expect((await w.state.getDay(w.day))?.walk).toBeUndefined();
    expect((await w.state.getDay(w.day))?.failure).toBeUndefined();
    await exact(w);
  });

  it('an order that reshuffles on every request: more passes, still bounded, and never a DEADLINE while it gets further', async () => {
    const seed = testSeed();
    const w = world(true, seed);
    let runs = 0;
    while (!(await w.state.getDay(w.day))?.complete && runs < 60) {
      const s = await w.run();
      expect(s.failedDays, `seed ${seed}`).toEqual([]);
      runs++;
      w.clock.advance(60_000);
    }
    expect((await w.state.getDay(w.day))?.complete, `seed ${seed}: complete after ${runs} runs`).toBe(true);
    expect(runs, `seed ${seed}`).toBeLessThan(60);
    await exact(w);
  });

  it('killed between and inside runs (at seeded steps): the day still completes, exactly once', async () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    const w = world(false, 2);
    let runs = 0;
    let kills = 0;
    while (!(await w.state.getDay(w.day))?.complete && runs < 30) {
      w.faults.revive();
      const kill = runs === 0 || random() < 0.5; // the first run is always killed: every seed tests a kill
      w.faults.crashAfter(kill ? w.faults.steps + 1 + Math.floor(random() * 40) : undefined);
      const crashesBefore = w.faults.log.filter((e) => e.outcome === 'crash').length;
      await w.run().catch(() => undefined); // a crashed process may fail, or end with what it had
      if (w.faults.log.filter((e) => e.outcome === 'crash').length > crashesBefore) kills++;
      w.faults.revive().crashAfter(undefined); // the next process; the test reads the stores as it would
      runs++;
      w.clock.advance(60_000);
    }
    w.faults.revive().crashAfter(undefined);
    expect(kills, `seed ${seed}`).toBeGreaterThan(0);
    expect((await w.state.getDay(w.day))?.complete, `seed ${seed}: after ${runs} runs, ${kills} killed`).toBe(
      true,
    );
    await exact(w);
  });
});

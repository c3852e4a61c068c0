import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import {
  dayOfRecords,
  ScriptedUpstream,
  type ScriptedUpstreamOptions,
} from '../../devkit/scriptedUpstream.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { BARREN_PASSES } from '../../lib/archive/config/walkLimits.ts';
import { type FanoutItem, fanoutItemSchema } from '../../lib/archive/fanout/fanoutTypes.ts';
import { finishFanout } from '../../lib/archive/fanout/finishFanout.ts';
import { planFanout } from '../../lib/archive/fanout/planFanout.ts';
import { walkFanoutItem } from '../../lib/archive/fanout/walkFanoutItem.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { ArchiveOptions, DayResult, RunSummary } from '../../lib/archive/run/runTypes.ts';
import { STALLED_PASSES } from '../../lib/archive/walk/walkDay.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const PER_PAGE = 10;
/** Runs (or orchestrations) a case may take: a barren walk needs 1 + BARREN_PASSES passes. */
const MOST_RUNS = BARREN_PASSES + 4;

/**
 * One day as the server scripts it. Every case has more than `rangePages` pages, so the fan-out walks it in
 * ranges (one pass per orchestration) while a run walks it whole (every pass in one run).
 */
interface Case {
  name: string;
  rows: number;
  /**
   * A live day: the day is today at the server, and every page request finds this many more sessions
   * appended to it (a busy account's day grows between any two requests).
   */
  growsPerRequest?: number;
  /** A growing day that is not today: five days old, closed at the server. */
  closed?: boolean;
  /** Items the server serves that are not records (quarantined). */
  bad?: number;
  staleTotals?: ScriptedUpstreamOptions['staleTotals'];
  /** A record the server holds twice (a copy alike in every field, so one `record_id`): its index. */
  twice?: number;
}

const CASES: Case[] = [
  { name: 'an honest day', rows: 95 },
  { name: 'a day of whole pages (its end is an empty page)', rows: 90 },
  { name: 'a count that lags by 7 rows', rows: 95, staleTotals: 7 },
  { name: 'a count rounded down to whole pages', rows: 95, staleTotals: 'floor-pages' },
  { name: 'a count stuck 30 rows above the content', rows: 95, staleTotals: -30 },
  { name: 'a day with two items that are not records', rows: 93, bad: 2 },
  { name: 'a day with bad items and a count that lags', rows: 93, bad: 2, staleTotals: 5 },
];

/** The verdict a driver reached for the day: what the rules concluded at the end of its walk. */
function verdictOf(result: DayResult) {
  return {
    complete: result.complete,
    shortfall: result.shortfall,
    passes: result.passes,
    unreliableTotals: result.unreliableTotals,
  };
}

function world(c: Case) {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const day: Day = c.growsPerRequest && !c.closed ? toDay(clock.now()) : addDays(toDay(clock.now()), -5);
  const items: unknown[] = [...dayOfRecords(day, c.rows, 1_000)];
  const later = c.growsPerRequest ? dayOfRecords(day, 100_000, 100_000) : [];
  for (let i = 0; i < (c.bad ?? 0); i++) items.splice(7 + i * 40, 0, { not: 'a record', n: i });
  if (c.twice !== undefined) items.push({ ...(items[c.twice] as object) });
  const api = new ScriptedUpstream({
    clock,
    days: new Map([[day, items]]),
    maxPageSize: PER_PAGE,
    reshuffle: false,
    ...(c.staleTotals === undefined ? {} : { staleTotals: c.staleTotals }),
    ...(c.growsPerRequest
      ? {
          beforeRequest: (d: Day) => {
            if (d === day) items.push(...later.splice(0, c.growsPerRequest));
          },
        }
      : {}),
  });
  const objects = new MemoryObjectStore();
  const state = new MemoryStateStore();
  const deps = testDeps({ api, objects, state, clock });
  // The stack snapshots the live list in a function of its own, never in the fan-out: runs leave it out too.
  const options: ArchiveOptions = { ...TEST_OPTIONS, pageSize: 100, snapshotActive: false };
  return { clock, day, deps, options, state, items };
}

const dayIn = (summary: RunSummary, day: Day) => summary.days.find((d) => d.day === day);

/** What a driver's summaries say over every run it took: the records it added, its last summary's parts. */
function summed(summaries: RunSummary[]) {
  const last = summaries.at(-1) as RunSummary;
  return {
    recordsNew: summaries.reduce((a, s) => a + s.recordsNew, 0),
    quarantined: summaries.reduce((a, s) => a + s.quarantined, 0) > 0,
    parts: Object.keys(last).sort(),
    brokenPartitions: summaries.flatMap((s) => s.brokenPartitions),
    digest: Object.keys(last.digest ?? {}).sort(),
  };
}

/** A partition an earlier run left listing a staged file that is gone: publishing finds it broken. */
async function leaveBrokenPartition(w: ReturnType<typeof world>): Promise<string> {
  const dt = addDays(w.day, -1);
  const name = '20261114T060000Z-r0-0001.parquet';
  await w.state.putPartition({
    dt,
    version: 0,
    files: [
      {
        name,
        stagingKey: archiveKeys.stagingOf('history', 'r0', dt, name),
        rows: 1,
        bytes: 1,
        runId: 'r0',
        fence: 1,
        committedAt: w.clock.now().toISOString(),
        published: false,
      },
    ],
  });
  return `history/dt=${dt}`;
}

/** The run driver: runs until one walks the day to its end (a run walks every pass of it). */
async function byRuns(c: Case, before?: (w: ReturnType<typeof world>) => Promise<unknown>) {
  const w = world(c);
  await before?.(w);
  const summaries: RunSummary[] = [];
  for (let n = 0; n < MOST_RUNS; n++) {
    const summary = await runArchive(w.deps, w.options);
    summaries.push(summary);
    w.clock.advance(60_000);
    const result = dayIn(summary, w.day);
    if (result && !result.interrupted) return { verdict: verdictOf(result), summary: summed(summaries) };
  }
  throw new Error(`${c.name}: no run walked the day to its end`);
}

/** The fan-out driver: one orchestration (plan, every item, finish) a pass, until the day's walk ends. */
async function byFanout(c: Case, before?: (w: ReturnType<typeof world>) => Promise<unknown>) {
  const w = world(c);
  await before?.(w);
  const summaries: RunSummary[] = [];
  let last: DayResult | undefined;
  for (let n = 1; n <= MOST_RUNS; n++) {
    const orchestrationId = `exec-${n}`;
    const plan = await planFanout(w.deps, w.options, {
      orchestrationId,
      rangePages: 4,
      leaseTtlMs: 3_600_000,
    });
    const items = fanoutItemSchema
      .array()
      .parse(
        JSON.parse(Buffer.from((await w.deps.objects.get(plan.itemsKey)) ?? []).toString()),
      ) as FanoutItem[];
    const ranges = items.filter((i) => i.kind === 'range' && i.day === w.day);
    if (ranges.length === 0) throw new Error(`${c.name}: the fan-out walked the day whole, not in ranges`);
    for (const item of items) {
      await walkFanoutItem(w.deps, w.options, {
        orchestrationId,
        lease: plan.lease,
        windowDays: plan.windowDays,
        item,
      });
    }
    const summary = await finishFanout(w.deps, w.options, plan);
    summaries.push(summary);
    w.clock.advance(60_000);
    last = dayIn(summary, w.day);
    if (last && !last.interrupted) return { verdict: verdictOf(last), summary: summed(summaries) };
  }
  throw new Error(
    `${c.name}: the fan-out's walk of the day did not end in ${MOST_RUNS} passes (last: ${JSON.stringify(last && verdictOf(last))})`,
  );
}

describe('the completeness rules, one table through both drivers (a run, the fan-out)', () => {
  it.each(CASES)('$name: the same verdict from a run and from the fan-out', async (c) => {
    const { verdict: run, summary: runSummary } = await byRuns(c);
    const { verdict: fanout, summary: fanoutSummary } = await byFanout(c);
    expect(fanout).toEqual(run);
    // One summary builder: the same parts, the same records added and quarantined over the walk.
    expect(fanoutSummary).toEqual(runSummary);
    expect(runSummary.recordsNew).toBe(c.rows);
    expect(runSummary.quarantined).toBe((c.bad ?? 0) > 0);
    // The rules' own expectations, so that both drivers agreeing on a wrong verdict fails too.
    const above = typeof c.staleTotals === 'number' && c.staleTotals < 0;
    // Caught lying: rows beyond the total (a count above the rows is never disproved, only stalls).
    const lies = c.staleTotals !== undefined && c.staleTotals !== 0 && !above;
    expect(run.complete).toBe(!above);
    expect(run.unreliableTotals).toBe(lies);
    expect(run.shortfall).toBe(above ? -(c.staleTotals as number) : 0);
    expect(run.passes).toBe(above ? 1 + STALLED_PASSES : lies ? 2 : 1);
  });

  it('a row the server holds twice: both drivers archive it once and end short, the fan-out (which counts no served rows) after BARREN_PASSES', async () => {
    const c: Case = { name: 'a row held twice', rows: 95, twice: 12 };
    const { verdict: run, summary: runSummary } = await byRuns(c);
    const { verdict: fanout, summary: fanoutSummary } = await byFanout(c);
    for (const v of [run, fanout]) expect(v).toMatchObject({ complete: false, shortfall: 1 });
    expect(runSummary.recordsNew).toBe(95);
    expect(fanoutSummary.recordsNew).toBe(95);
    // A run counts what each pass serves, so it sees the same row twice in every pass: a stall streak.
    expect(run.passes).toBe(2 + STALLED_PASSES);
    // The fan-out's ranges report ids, not what they served twice: ten passes that add nothing end it.
    expect(fanout.passes).toBe(1 + BARREN_PASSES);
  });

  it('what publishing found before the days (a broken partition) is in both drivers’ summaries', async () => {
    const c = CASES[0] as Case;
    let where = '';
    const leave = async (w: ReturnType<typeof world>) => {
      where = await leaveBrokenPartition(w);
    };
    const run = await byRuns(c, leave);
    const fanout = await byFanout(c, leave);
    expect(run.summary.brokenPartitions).toContain(where);
    expect(fanout.summary).toEqual(run.summary);
  });

  it('a live day, grown by every request: both drivers end its walk once it holds what existed at the pass start', async () => {
    const c: Case = { name: 'today, growing', rows: 95, growsPerRequest: 1 };
    const { verdict: run, summary: runSummary } = await byRuns(c);
    const { verdict: fanout } = await byFanout(c);
    // Not walked to maxPasses (TEST_OPTIONS: 30) while it grows: one pass, not complete (a later scan of the
    // closed day proves it), every row that existed when the walk began archived.
    for (const v of [run, fanout]) {
      expect(v.passes).toBe(1);
      expect(v.complete).toBe(false);
    }
    expect(runSummary.recordsNew).toBeGreaterThanOrEqual(c.rows);
  });

  it('the same growth on a day the server has closed: the walk goes on, as a count that moves is not trusted', async () => {
    const c: Case = { name: 'a closed day, growing', rows: 95, growsPerRequest: 1, closed: true };
    const w = world(c);
    const summary = await runArchive(w.deps, { ...w.options, maxPasses: 4 });
    expect(dayIn(summary, w.day)).toMatchObject({ passes: 4, complete: false });
  });
});

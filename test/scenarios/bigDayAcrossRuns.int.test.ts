import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { formatSummary } from '../../lib/cli/formatSummary.ts';
import { expectIdsExact, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { bigDayWorld, CAP, IN_FLIGHT, LATENCY_MS } from './bigDayWorld.ts';

const SESSIONS = 30_000;
const MAX_RUN_MS = 6_000;
const RESERVE_MS = 500;
/** Pages the latency allows in one run's budget: (6000 − 500) ms ÷ 40 ms × 2 in flight. */
const BOUND_PAGES = ((MAX_RUN_MS - RESERVE_MS) / LATENCY_MS) * IN_FLIGHT;
/** The day's pages at the cap, and the empty page that proves the end of a total of whole pages. */
const DAY_PAGES = SESSIONS / CAP + 1;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * One day of 30,000 sessions behind an emulator that caps pages at 100 rows and answers each request 40 ms
 * late (real HTTP, real latency), archived by runs cut at 6 s with a 500 ms reserve, one every 6 hours of
 * simulated time. The runs' clock moves only with the server's answers (`LatencyClock`), so what one run
 * fetches is the same on any machine; wall-clock ratios are the bench's (bench/bigDay.ts).
 */
async function world(stableOrder: boolean) {
  const { clock, emulator, dir, local, day, latency, http, runAt, options } = await bigDayWorld(SESSIONS, {
    faults: { delayMs: LATENCY_MS, stableOrder },
    dirPrefix: 'ta-bigday-',
    cleanups,
  });
  const objects = createFileObjectStore(join(dir, 'archive'));
  const truth = new Set(emulator.truth(day).map((r) => recordId(r, TEST_TOKEN_KEY)));
  const api = latency.api(http);
  const run = async (n: number): Promise<{ summary: RunSummary; answered: number }> => {
    runAt(n);
    const summary = await runArchive(
      testDeps({ api, objects, state: local.state, clock }),
      options(MAX_RUN_MS, RESERVE_MS),
    );
    return { summary, answered: latency.answered };
  };
  return { day, truth, objects, state: local.state, run };
}

describe('a day bigger than one run', () => {
  it('30,000 sessions, pages of 100 at 40 ms, runs of 6 s: complete and proven within 3 runs, each cut run at the latency bound, every run saying what happened', async () => {
    const w = await world(true);
    const runs: { summary: RunSummary; answered: number }[] = [];
    while (runs.length < 6 && !(await w.state.getDay(w.day))?.complete) runs.push(await w.run(runs.length));

    expect(runs.length, 'runs until the day is proven complete').toBeLessThanOrEqual(3);
    await expectIdsExact(w.objects, w.truth);
    expect(await w.state.getDay(w.day)).toMatchObject({ complete: true });
    expect((await w.state.getDay(w.day))?.walk).toBeUndefined();

    const results = runs.map((r) => r.summary.days.find((d) => d.day === w.day));
    const cut = results.filter((d) => d?.interrupted);
    expect(cut.length).toBeGreaterThan(0);
    for (const d of cut) {
      // A cut run spends its budget fetching: at least 0.8 of the pages the latency allows.
      expect(d?.pagesThisRun ?? 0).toBeGreaterThanOrEqual(0.8 * BOUND_PAGES);
      // What it says is left is what the day's totals leave.
      expect(d?.outlook?.pagesLeft).toBe(DAY_PAGES - (d?.pages ?? 0));
    }
    // No page fetched twice beyond the few in flight when a run was cut (and the preflight's one a run).
    const fetched = runs.reduce((a, r) => a + r.answered, 0);
    expect(fetched).toBeLessThanOrEqual(DAY_PAGES + runs.length * (1 + 2 * IN_FLIGHT));
    expect(results.reduce((a, d) => a + (d?.pagesThisRun ?? 0), 0)).toBe(results.at(-1)?.pages);

    // Every summary says what happened to the day, without contradicting itself.
    const [first, ...rest] = runs.map((r) => formatSummary(r.summary));
    expect(first).toContain('0 of 1 planned to their end; 1 left to the next run by the deadline');
    expect(first).toMatch(
      new RegExp(
        `day walk: +${w.day}: \\d+ page\\(s\\) this run \\(\\d+ in all\\), cut by the deadline; \\d+ page\\(s\\) left by its totals; still needed: the pass's end \\(a page shorter than 100\\), \\d+ more row\\(s\\) to reach the total 30000; about 1 more run\\(s\\)`,
      ),
    );
    expect(rest.at(-1)).toContain('1 of 1 planned to their end');
    expect(rest.at(-1)).toMatch(
      new RegExp(
        `day walk: +${w.day}: went on at page \\d+ of pass 1, \\d+ page\\(s\\) this run \\(${DAY_PAGES} in all\\), proven complete`,
      ),
    );
    expect(rest.at(-1)).not.toContain('left to the next run');
  });
});

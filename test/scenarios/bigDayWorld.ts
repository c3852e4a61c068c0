import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_PAID_KEY, type EmulatorOptions, startEmulator } from '../../devkit/startEmulator.ts';
import type { ArchiveOptions } from '../../lib/archive/run/runTypes.ts';
import { openLocalState } from '../../lib/archive/state/openLocalState.ts';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { TEST_OPTIONS } from '../support/engineKit.ts';
import { LatencyClock } from '../support/latencyClock.ts';

/** Rows a page at the most: the emulator's cap and the runs' page size. */
export const CAP = 100;
/** How late the runs' clock sees each answer (`LatencyClock`). */
export const LATENCY_MS = 40;
/** History requests a run has in flight at once. */
export const IN_FLIGHT = 2;

const START = '2026-10-01T06:00:00.000Z';

/**
 * A day bigger than one run: every day of the emulator holds `sessions` short sessions (1 to 2 minutes),
 * all visible at once, none late, behind pages capped at CAP; the runs ask for one of them (`day`, three
 * days back) into a local archive (`dir/archive`, its state `local`), one run every 6 hours of simulated
 * time (`runAt(n)` sets the clock for the n-th), the clock moving only with the server's answers
 * (`latency`). What it started goes on `cleanups`.
 */
export async function bigDayWorld(
  sessions: number,
  opts: {
    faults: NonNullable<EmulatorOptions['faults']>;
    dirPrefix: string;
    cleanups: (() => Promise<void>)[];
  },
) {
  const clock = new ManualClock(START);
  const emulator = await startEmulator({
    clock,
    maxPageSize: CAP,
    dataset: {
      heavyEveryDays: 1,
      heavyMin: sessions,
      heavyMax: sessions,
      minSessionMs: 60_000,
      maxSessionMs: 120_000,
      lateRate: 0,
    },
    faults: opts.faults,
  });
  const dir = await mkdtemp(join(tmpdir(), opts.dirPrefix));
  const local = await openLocalState(join(dir, 'archive', '.state'));
  const http = createTunnelApiClient({ baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY, clock });
  opts.cleanups.push(async () => {
    await http.close();
    await emulator.close();
    await local.close();
    await rm(dir, { recursive: true, force: true });
  });
  const day = addDays(toDay(clock.now()), -3);
  const latency = new LatencyClock(clock, LATENCY_MS, IN_FLIGHT);
  /** Sets the clock for the n-th run (from 0). */
  const runAt = (n: number): void => clock.set(new Date(Date.parse(START) + n * 6 * 3_600_000));
  /** A run's options: the day alone, pages of CAP, IN_FLIGHT at once, cut at `maxRunMs` less `reserveMs`. */
  const options = (maxRunMs: number, reserveMs: number): ArchiveOptions => ({
    ...TEST_OPTIONS,
    pageSize: CAP,
    pageConcurrency: IN_FLIGHT,
    onlyDays: [day],
    budget: latency.budget(maxRunMs, reserveMs),
  });
  return { clock, emulator, dir, local, http, day, latency, runAt, options };
}

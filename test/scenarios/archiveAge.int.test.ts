import { describe, expect, it } from 'vitest';
import { countingObjectStore, type StoreCounts } from '../../devkit/countingObjectStore.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { agedArchive } from '../../devkit/syntheticArchive.ts';
import { ManualClock } from '../../lib/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../../lib/clock/day.ts';
import { silentLogger } from '../../lib/log/logger.ts';
import { runArchive } from '../../lib/run/runArchive.ts';
import type { ArchiveDeps } from '../../lib/run/runTypes.ts';
import { countingStateStore, type StateCounts } from '../support/countingStateStore.ts';
import { TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const START = '2026-11-20T06:00:00.000Z';

/**
 * The requests and bytes of one steady-state run on an archive `ageDays` old: a real run fills the window,
 * older days are generated as the stack would have left them (`ageArchive`), one more run settles, and
 * the next day's run is counted.
 */
async function steadyRun(
  ageDays: number,
): Promise<{ counts: StoreCounts; stateCounts: StateCounts; recordsNew: number }> {
  const clock = new ManualClock(START);
  const today = toDay(clock.now());
  const days = new Map<Day, unknown[]>();
  let n = 0;
  for (const d of dayRange(addDays(today, -59), addDays(today, 2))) {
    days.set(d, dayOfRecords(d, 12, n));
    n += 12;
  }
  const counting = countingObjectStore(new MemoryObjectStore());
  const counted = countingStateStore(new MemoryStateStore());
  const state = counted.state;
  const deps: ArchiveDeps = {
    api: new ScriptedUpstream({ clock, days, maxPageSize: 5 }),
    objects: counting.objects,
    state,
    clock,
    logger: silentLogger,
    tokenKey: TEST_TOKEN_KEY,
    signer: TEST_SIGNER,
  };
  await agedArchive(deps, clock, TEST_OPTIONS, ageDays);
  clock.advance(86_400_000);
  counting.reset();
  counted.reset();
  const s = await runArchive(deps, TEST_OPTIONS);
  const stateCounts = structuredClone(counted.counts);
  expect(s.failedDays).toEqual([]);
  expect(s.gaps).toEqual([]);
  expect(s.rebuilt).toBeUndefined();
  // The generated days are left as they were: sealed, none turned into a gap.
  expect((await state.listDays()).filter((d) => d.gap)).toEqual([]);
  return { counts: structuredClone(counting.counts), stateCounts, recordsNew: s.recordsNew };
}

describe('a steady run on an old archive', () => {
  it('costs the same requests, bytes and state reads at 60 and 400 days of prior partitions and digests', async () => {
    const young = await steadyRun(60);
    const old = await steadyRun(400);
    expect(old.recordsNew).toBe(young.recordsNew);
    expect(young.counts.requests).toBeGreaterThan(0);
    expect(old.counts.byMethod).toEqual(young.counts.byMethod);
    expect(old.counts.requests).toBe(young.counts.requests);
    // The head digest's seq and link are a few bytes longer; nothing else read depends on age.
    expect(Math.abs(old.counts.bytesRead - young.counts.bytesRead)).toBeLessThanOrEqual(64);
    // The state is read as much at 400 days as at 60: no listing of every day or partition.
    expect(young.stateCounts.calls).toBeGreaterThan(0);
    expect(old.stateCounts.byMethod).toEqual(young.stateCounts.byMethod);
    expect(old.stateCounts.itemsListed).toBe(young.stateCounts.itemsListed);
  });
});

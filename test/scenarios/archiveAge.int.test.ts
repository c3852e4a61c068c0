import { describe, expect, it } from 'vitest';
import type { StoreCounts } from '../../devkit/countingObjectStore.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { countedAgedArchive } from '../support/countedAgedArchive.ts';
import type { StateCounts } from '../support/countingStateStore.ts';
import { TEST_OPTIONS } from '../support/engineKit.ts';

const START = '2026-11-20T06:00:00.000Z';

/**
 * The requests and bytes of one steady-state run on an archive `ageDays` old: a real run fills the window,
 * older days are generated as the stack would have left them (`ageArchive`), one more run settles, and
 * the next day's run is counted.
 */
async function steadyRun(
  ageDays: number,
): Promise<{ counts: StoreCounts; stateCounts: StateCounts; recordsNew: number }> {
  const { clock, deps, objects: counting, state: counted } = await countedAgedArchive(START, ageDays);
  const state = counted.state;
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

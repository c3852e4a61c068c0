import { afterEach, describe, expect, it } from 'vitest';
import { addDays, toDay } from '../../lib/clock/day.ts';
import { runArchive } from '../../lib/engine/runArchive.ts';
import { recordId } from '../../lib/records/recordId.ts';
import { archivedIds, startWorld, TEST_OPTIONS, TEST_TOKEN_KEY, type World } from './engineKit.ts';

const START = '2026-10-01T06:00:00.000Z';
let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('runArchive with PARQUET_ENCODER=worker', () => {
  it('archives heavy days (several chunks per partition, shuffled pages) exactly once, and a rerun adds nothing', async () => {
    world = await startWorld({
      start: START,
      store: 'file',
      dataset: { heavyEveryDays: 1, heavyMin: 2_600, heavyMax: 3_400, lateRate: 0 },
      maxPageSize: 700,
    });
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
  }, 120_000);
});

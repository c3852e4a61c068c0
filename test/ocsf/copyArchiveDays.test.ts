import { describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { copyArchiveDays } from '../../lib/analytics/ocsf/copyArchiveDays.ts';
import { addDays, type Day } from '../../lib/foundation/clock/day.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const tmp = tempDirPer('ta-copy-days-');
const LAST: Day = '2026-11-20';

/**
 * An archive of `days` days up to LAST: per day twelve history files (an archiver run every two hours)
 * and one findings file, so that listing all of it takes more pages (1,000 keys each) at 400 days than
 * at 60.
 */
async function archiveOf(days: number) {
  const store = new MemoryObjectStore();
  for (let i = 0; i < days; i++) {
    const dt = addDays(LAST, -i);
    for (const key of [
      ...Array.from(
        { length: 12 },
        (_, h) => `history/dt=${dt}/20261120T${String(2 * h).padStart(2, '0')}0000Z-run-0001.parquet`,
      ),
      `findings/dt=${dt}/20261120T000000Z-detect-0001.parquet`,
    ])
      await store.put(key, key);
  }
  return countingObjectStore(store);
}

describe('copyArchiveDays', () => {
  it.each([
    ['the hourly lake run', { fromDay: addDays(LAST, -7), untilDay: LAST }],
    ['one day', { fromDay: LAST, untilDay: LAST }],
  ])('for %s, lists and reads as much at 400 days of archive as at 60', async (_name, days) => {
    const counts = [];
    for (const age of [60, 400]) {
      const { objects, counts: c } = await archiveOf(age);
      const copied = await copyArchiveDays(objects, `${tmp.dir}/${age}`, days);
      counts.push({ copied, list: c.byMethod.list ?? 0, get: c.byMethod.get ?? 0 });
    }
    expect(counts[0]?.list).toBeGreaterThan(0);
    expect(counts[1]).toEqual(counts[0]);
  });

  it('lists all of history only without a first day (the recovery path): more pages at 400 days', async () => {
    const lists = [];
    for (const age of [60, 400]) {
      const { objects, counts } = await archiveOf(age);
      await copyArchiveDays(objects, `${tmp.dir}/all-${age}`, { untilDay: addDays(LAST, -age + 1) });
      lists.push(counts.byMethod.list ?? 0);
    }
    expect(lists[1]).toBeGreaterThan(lists[0] ?? 0);
  });

  it('copies only the datasets asked for, with their keys', async () => {
    const { objects } = await archiveOf(3);
    const copied = await copyArchiveDays(
      objects,
      `${tmp.dir}/history-only`,
      { fromDay: LAST, untilDay: LAST },
      ['history/'],
    );
    expect(copied).toBe(12);
  });
});

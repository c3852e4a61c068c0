import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { sessionsStartingOn } from '../../lib/archive/emulator/dataset.ts';
import { type FixedClock, fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { daysByKind, get, getJson, historyPath, key, NOW, TODAY } from './emulatorKit.ts';

interface Page {
  totalElements: number;
  totalPages: number;
  content: unknown[];
  last: boolean;
}

const { heavy, normal } = daysByKind();
const WALK_DAYS = normal.filter((d) => d >= '2025-02-01');
const YESTERDAY = addDays(TODAY, -1);

/** Walks pages 0..last once, the naive way, collecting every record it is given. */
async function naiveWalk(url: string, day: string, size: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let page = 0; ; page++) {
    const p = await getJson<Page>(url, historyPath(day, day, { page, size }));
    out.push(...p.content);
    if (p.last) return out;
  }
}

const sorted = (records: unknown[]) => records.map(key).sort();

let clock: FixedClock;
let emu: EmulatorHandle;
beforeAll(async () => {
  clock = fixedClock(NOW);
  emu = await startEmulator({ seed: 1, clock });
});
afterEach(() => {
  emu.setFaults({});
  clock.set(NOW);
});
afterAll(() => emu.close());

describe('walking pages', () => {
  it('yields exactly truth() for any day and page size when the order is stable (property)', async () => {
    emu.setFaults({ stableOrder: true });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WALK_DAYS), fc.integer({ min: 1, max: 300 }), async (day, size) => {
        const walked = await naiveWalk(emu.url, day, size);
        expect(sorted(walked)).toEqual(sorted(emu.truth(day)));
      }),
      { numRuns: 25 },
    );
  });

  it('yields exactly truth() for a heavy day walked at the maximum page size', async () => {
    emu.setFaults({ stableOrder: true });
    const day = heavy.find((d) => d < addDays(TODAY, -21))!;
    const walked = await naiveWalk(emu.url, day, 2000);
    expect(walked.length).toBeGreaterThan(2000);
    expect(sorted(walked)).toEqual(sorted(emu.truth(day)));
  });

  it('misses and repeats records in a naive walk when the order is shuffled per request', async () => {
    const day = WALK_DAYS.find((d) => emu.truth(d).length >= 100)!;
    const truth = new Set(emu.truth(day).map(key));
    const walked = (await naiveWalk(emu.url, day, 10)).map(key);
    const distinct = new Set(walked);
    expect(walked.length).toBe(truth.size);
    expect(distinct.size).toBeLessThan(walked.length);
    expect([...distinct].every((k) => truth.has(k))).toBe(true);
  });

  it('still yields the whole day when one page holds it all, even shuffled', async () => {
    const day = WALK_DAYS[0]!;
    const p = await getJson<Page>(emu.url, historyPath(day, day, { size: 2000 }));
    expect(sorted(p.content)).toEqual(sorted(emu.truth(day)));
  });
});

describe('late rows', () => {
  it('adds rows to old days as long sessions end and ingestion lag passes', async () => {
    const before = emu.truth(YESTERDAY).map(key);
    const first = await getJson<Page>(emu.url, historyPath(YESTERDAY, YESTERDAY));
    expect(first.totalElements).toBe(before.length);
    clock.advance(7 * 86_400_000);
    const after = new Set(emu.truth(YESTERDAY).map(key));
    expect(after.size).toBeGreaterThan(before.length);
    expect(before.every((k) => after.has(k))).toBe(true);
    const later = await getJson<Page>(emu.url, historyPath(YESTERDAY, YESTERDAY));
    expect(later.totalElements).toBe(after.size);
  });

  it('drops a day from the window after windowDays', async () => {
    expect((await get(emu.url, historyPath(YESTERDAY, YESTERDAY))).status).toBe(200);
    clock.advance(60 * 86_400_000);
    expect((await get(emu.url, historyPath(YESTERDAY, YESTERDAY))).status).toBe(400);
    expect(emu.truth(YESTERDAY)).toEqual([]);
  });

  it('releases drift rows mid-walk, shifting totals, and truth() keeps them afterwards', async () => {
    const now = Date.parse(NOW);
    const pending = sessionsStartingOn(1, YESTERDAY).filter((s) => s.endMs <= now && s.endMs + s.lagMs > now);
    expect(pending.length).toBeGreaterThanOrEqual(3);
    const base = emu.truth(YESTERDAY).length;
    emu.setFaults({ stableOrder: true, driftInsertPerRequest: 1 });
    const totals: number[] = [];
    for (let page = 0; page < 3; page++) {
      totals.push(
        (await getJson<Page>(emu.url, historyPath(YESTERDAY, YESTERDAY, { page, size: 5 }))).totalElements,
      );
    }
    expect(totals).toEqual([base + 1, base + 2, base + 3]);
    emu.setFaults({});
    expect(emu.truth(YESTERDAY)).toHaveLength(base + 3);
    expect((await getJson<Page>(emu.url, historyPath(YESTERDAY, YESTERDAY))).totalElements).toBe(base + 3);
  });
});

describe('determinism', () => {
  it('serves identical data for the same seed and different data for another', async () => {
    const other = await Promise.all(
      [7, 7, 8].map((seed) => startEmulator({ seed, clock: fixedClock(NOW), faults: { stableOrder: true } })),
    );
    try {
      const bodies = await Promise.all(
        other.map((e) => get(e.url, historyPath(YESTERDAY, YESTERDAY, { size: 50 }))),
      );
      expect(bodies[0]!.text).toBe(bodies[1]!.text);
      expect(bodies[2]!.text).not.toBe(bodies[0]!.text);
    } finally {
      await Promise.all(other.map((e) => e.close()));
    }
  });
});

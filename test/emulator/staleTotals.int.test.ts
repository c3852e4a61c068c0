import { describe, expect, it } from 'vitest';
import { type EmulatorOptions, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { staleCount } from '../../lib/archive/emulator/staleTotals.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { serverPer } from '../support/serverPer.ts';
import { daysByKind, getJson, historyPath, key, NOW, TODAY } from './emulatorKit.ts';

type Page = {
  totalElements: number;
  totalPages: number;
  size: number;
  numberOfElements: number;
  last: boolean;
  content: unknown[];
};

const { normal, heavy } = daysByKind();
const OLD = [...normal, ...heavy].filter((d) => d < addDays(TODAY, -25)).sort();

/** A naive walker: trusts `totalPages` and stops there. */
async function naiveWalk(url: string, day: string, size: number): Promise<unknown[]> {
  const first = await getJson<Page>(url, historyPath(day, day, { page: 0, size }));
  const rows = [...first.content];
  for (let p = 1; p < first.totalPages; p++) {
    rows.push(...(await getJson<Page>(url, historyPath(day, day, { page: p, size }))).content);
  }
  return rows;
}

/** Walks until a page is shorter than the echoed size: the only end signal the API gives. */
async function shortPageWalk(url: string, day: string, size: number): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let p = 0; ; p++) {
    const page = await getJson<Page>(url, historyPath(day, day, { page: p, size }));
    rows.push(...page.content);
    if (page.numberOfElements < page.size) return rows;
  }
}

describe('staleCount', () => {
  it.each([
    [undefined, 45, 45],
    [{ mode: 'floor-pages' as const }, 45, 40],
    [{ mode: 'floor-pages' as const }, 40, 40],
    [{ mode: 'floor-pages' as const }, 7, 0],
    [{ mode: 'lag' as const, lagMs: 1000 }, 45, 30],
  ])('with %j reports %i rows as %i (size 20, older snapshot 30)', (stale, trueCount, expected) => {
    expect(staleCount(stale, 20, trueCount, () => 30)).toBe(expected);
  });

  it('never reports more than the true count in lag mode', () => {
    expect(staleCount({ mode: 'lag', lagMs: 1 }, 20, 10, () => 50)).toBe(10);
  });
});

/** An emulator for the describe block (seed 1, fixed clock, stable order) serving totals the given stale way. */
function staleEmulator(stale: Pick<EmulatorOptions, 'staleTotals' | 'staleLagMs'>) {
  return serverPer(() =>
    startEmulator({ seed: 1, clock: fixedClock(NOW), ...stale, faults: { stableOrder: true } }),
  );
}

describe("startEmulator({ staleTotals: 'floor-pages' })", () => {
  const emu = staleEmulator({ staleTotals: 'floor-pages' });

  it('rounds totals down to whole pages, so a walker trusting totalPages loses the last partial page', async () => {
    const size = 7;
    let lost = 0;
    let truth = 0;
    for (const day of OLD.slice(0, 6)) {
      const expected = emu.truth(day);
      const page0 = await getJson<Page>(emu.url, historyPath(day, day, { page: 0, size }));
      if (expected.length >= size)
        expect(page0.totalElements).toBe(Math.floor(expected.length / size) * size);
      expect(page0.totalPages).toBe(Math.floor(expected.length / size));
      const naive = await naiveWalk(emu.url, day, size);
      expect(naive.length).toBe(Math.floor(expected.length / size) * size);
      lost += expected.length - naive.length;
      truth += expected.length;
    }
    expect(lost).toBeGreaterThan(0);
    expect(truth).toBeGreaterThan(lost);
  });

  it('still serves the partial page, whose envelope then carries the corrected total (Spring PageImpl)', async () => {
    const day = OLD.find((d) => emu.truth(d).length % 7 !== 0 && emu.truth(d).length > 7)!;
    const n = emu.truth(day).length;
    const lastPage = Math.floor(n / 7);
    const p = await getJson<Page>(emu.url, historyPath(day, day, { page: lastPage, size: 7 }));
    expect(p.numberOfElements).toBe(n % 7);
    expect(p.totalElements).toBe(n);
    expect(p.last).toBe(true);
  });

  it('lets a walker that stops on a short page collect exactly the truth', async () => {
    for (const day of OLD.slice(0, 4)) {
      const rows = await shortPageWalk(emu.url, day, 7);
      expect(rows.map(key).sort()).toEqual(emu.truth(day).map(key).sort());
    }
  });
});

describe("startEmulator({ staleTotals: 'lag' })", () => {
  const emu = staleEmulator({ staleTotals: 'lag', staleLagMs: 12 * 3_600_000 });

  it('counts an older snapshot: fewer rows than the content holds on a day still filling up', async () => {
    const day = addDays(TODAY, -1);
    const truth = emu.truth(day).length;
    const p = await getJson<Page>(emu.url, historyPath(day, day, { page: 0, size: 1 }));
    expect(p.totalElements).toBeGreaterThan(0);
    expect(p.totalElements).toBeLessThan(truth);
    expect(await shortPageWalk(emu.url, day, 1)).toHaveLength(truth);
  });

  it('agrees with the content on an old, settled day', async () => {
    const day = OLD[0]!;
    const p = await getJson<Page>(emu.url, historyPath(day, day, { page: 0, size: 5 }));
    expect(p.totalElements).toBe(emu.truth(day).length);
  });

  it.each([{ staleTotals: 'sometimes' as 'lag' }, { staleTotals: 'lag' as const, staleLagMs: -1 }])(
    'rejects %j as CONFIG_INVALID',
    async (bad) => {
      await expect(startEmulator(bad)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    },
  );
});

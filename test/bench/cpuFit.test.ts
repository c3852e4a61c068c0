import { describe, expect, it } from 'vitest';
import { cpuFit } from '../../bench/cpuFit.ts';

describe('cpuFit: a run CPU split into its fixed part and what a page adds', () => {
  it('recovers the line the runs lie on', () => {
    // 1.5 s a run, 7 ms a page.
    const runs = [250, 240, 260, 90].map((pages) => ({
      pagesThisRun: pages,
      cpuSeconds: 1.5 + pages * 0.007,
    }));
    expect(cpuFit(runs)).toEqual({ msPerPage: 7, fixedSeconds: 1.5, runs: 4 });
  });

  it('gives nothing when the runs cannot separate the two (one run, or the same pages each run)', () => {
    expect(cpuFit([{ pagesThisRun: 10, cpuSeconds: 1 }])).toBeUndefined();
    expect(
      cpuFit([
        { pagesThisRun: 10, cpuSeconds: 1 },
        { pagesThisRun: 10, cpuSeconds: 2 },
      ]),
    ).toBeUndefined();
  });

  it('gives nothing when the runs fetched nearly the same pages: their CPU noise would be the slope', () => {
    const close = [
      { pagesThisRun: 256, cpuSeconds: 2.34 },
      { pagesThisRun: 256, cpuSeconds: 2.2 },
      { pagesThisRun: 252, cpuSeconds: 2.54 },
      { pagesThisRun: 237, cpuSeconds: 2.31 },
    ];
    expect(cpuFit(close)).toBeUndefined();
    // One short run among them separates the two.
    expect(cpuFit([...close, { pagesThisRun: 19, cpuSeconds: 0.9 }])?.msPerPage).toBeGreaterThan(0);
  });
});

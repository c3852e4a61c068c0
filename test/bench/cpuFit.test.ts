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
});

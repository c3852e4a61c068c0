import { describe, expect, it } from 'vitest';
import type { WalkProgress } from '../../lib/archive/state/dayState.ts';
import { walkOutlook } from '../../lib/archive/walk/walkOutlook.ts';

const at = (p: Partial<WalkProgress>): WalkProgress => ({
  passes: 1,
  nextPage: 0,
  size: 100,
  planned: 300,
  totals: [30_000],
  observed: 0,
  stalled: 0,
  passStart: 0,
  pages: 0,
  ...p,
});

describe('walkOutlook', () => {
  it.each([
    {
      name: 'a total of whole pages: the empty end page is left too',
      progress: at({ nextPage: 275, pages: 275 }),
      distinct: 27_500,
      pagesThisRun: 275,
      want: {
        pagesLeft: 26,
        evidence: ["the pass's end (a page shorter than 100)", '2500 more row(s) to reach the total 30000'],
        runsExpected: 1,
      },
    },
    {
      name: 'a short last page ends the pass: no end page beyond it',
      progress: at({ nextPage: 100, planned: 300, totals: [29_950] }),
      distinct: 10_000,
      pagesThisRun: 50,
      want: { pagesLeft: 200, runsExpected: 4 },
    },
    {
      name: 'totals that moved: a whole pass that adds nothing is still needed',
      progress: at({ nextPage: 150, totals: [30_000, 30_100], planned: 301 }),
      distinct: 15_000,
      pagesThisRun: 150,
      want: {
        pagesLeft: 152,
        evidence: [
          "the pass's end (a page shorter than 100)",
          '15100 more row(s) to reach the total 30100',
          'a whole pass that adds nothing (the totals moved)',
        ],
        runsExpected: 5,
      },
    },
    {
      name: 'no page this run: the runs to finish are unknown',
      progress: at({ nextPage: 10 }),
      distinct: 1_000,
      pagesThisRun: 0,
      want: { pagesLeft: 291, runsExpected: undefined },
    },
  ])('$name', ({ progress, distinct, pagesThisRun, want }) => {
    const o = walkOutlook(progress, distinct, pagesThisRun);
    expect(o.pagesLeft).toBe(want.pagesLeft);
    expect(o.runsExpected).toBe(want.runsExpected);
    if (want.evidence) expect(o.evidence).toEqual(want.evidence);
  });
});

import { describe, expect, it } from 'vitest';
import type { WalkProgress } from '../../lib/archive/state/dayState.ts';
import { RESUMED_ROWS_AHEAD, resumedPassAhead, resumedPassPages } from '../../lib/archive/walk/walkDay.ts';

const pass = (nextPage: number, planned: number, size: number): WalkProgress => ({
  passes: 1,
  nextPage,
  size,
  planned,
  totals: [planned * size],
  observed: 0,
  stalled: 0,
  passStart: 0,
  pages: nextPage,
});
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('resumedPassAhead: the pages a run sends ahead of a resumed walk', () => {
  it.each([
    [
      '100-row pages: up to RESUMED_ROWS_AHEAD rows of them',
      pass(10, 1000, 100),
      undefined,
      range(10, RESUMED_ROWS_AHEAD / 100),
    ],
    ['2,000-row pages: never fewer than the requests in flight', pass(10, 1000, 2000), undefined, [10, 11]],
    ['the planned pages end first', pass(10, 14, 100), undefined, [10, 11, 12, 13]],
    ['the page cap ends first', pass(10, 1000, 100), 15, range(10, 5)],
    ['past the planned pages: the next page alone', pass(20, 14, 100), undefined, [20]],
    ['a pass not begun: none (the walk begins afresh)', pass(0, 14, 100), undefined, []],
  ])('%s', (_what, resume, maxPagesPerDay, pages) => {
    const options = { concurrency: 2, maxPagesPerDay };
    expect(resumedPassAhead(resume, options)).toEqual(pages);
    // It begins with the pages the walk asks for first.
    const first = resumedPassPages(resume, options);
    expect(resumedPassAhead(resume, options).slice(0, first.length)).toEqual(first);
  });
});

import { describe, expect, it } from 'vitest';
import type { HistoryPage } from '../../lib/archive/records/schemas.ts';
import type { WalkProgress } from '../../lib/archive/state/dayState.ts';
import {
  freshPassAhead,
  passPlanOf,
  ROWS_SENT_AHEAD,
  resumedPassAhead,
  resumedPassPages,
} from '../../lib/archive/walk/walkDay.ts';

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
      '100-row pages: up to ROWS_SENT_AHEAD rows of them',
      pass(10, 1000, 100),
      undefined,
      range(10, ROWS_SENT_AHEAD / 100),
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

describe('freshPassAhead: the pages a run sends ahead of a fresh pass once its page 0 answered', () => {
  /** Page 0 of a day of `total` rows, cut at `size` rows a page (the size the server echoes). */
  const page0 = (total: number, size: number, totalPages = Math.ceil(total / size)): HistoryPage =>
    // The fields a pass's plan reads; the rest of the envelope plays no part.
    ({
      content: [],
      rejected: [],
      size,
      number: 0,
      totalElements: total,
      totalPages,
    }) as unknown as HistoryPage;
  it.each([
    ['page 1 guessed at the size echoed: from page 2', page0(999, 100), 100, true, undefined, range(2, 8)],
    ['page 1 not guessed: from page 1', page0(999, 100), 100, false, undefined, range(1, 9)],
    [
      'a size capped under the one asked for: page 1 again, at the echoed size',
      page0(999, 100),
      2_000,
      true,
      undefined,
      range(1, 9),
    ],
    [
      'a whole number of full pages: the empty page after them too',
      page0(1_000, 100),
      100,
      true,
      undefined,
      range(2, 9),
    ],
    [
      'up to ROWS_SENT_AHEAD rows',
      page0(100_000, 100),
      100,
      true,
      undefined,
      range(2, ROWS_SENT_AHEAD / 100),
    ],
    [
      '2,000-row pages: never fewer than the requests in flight',
      page0(100_000, 2_000),
      2_000,
      true,
      undefined,
      [2, 3],
    ],
    [
      'the page cap ends first (the empty page past it is not asked for)',
      page0(1_000, 100),
      100,
      true,
      10,
      range(2, 8),
    ],
    ['pages past the cap: none (the walk fails the day)', page0(1_000, 100), 100, true, 4, []],
    ['one page: none', page0(40, 100), 100, true, undefined, []],
    ['an empty day: none', page0(0, 100, 0), 100, true, undefined, []],
  ])('%s', (_what, first, asked, guessed, maxPagesPerDay, pages) => {
    expect(freshPassAhead(first, asked, guessed, { concurrency: 2, maxPagesPerDay })).toEqual(pages);
  });

  it('asks for the pages the walk plans from the same page 0 (`passPlanOf`), and none past them', () => {
    for (const [total, size] of [
      [999, 100],
      [1_000, 100],
      [30, 7],
    ] as const) {
      const first = page0(total, size);
      const { planned, endAhead } = passPlanOf(first);
      const pages = freshPassAhead(first, size, false, { concurrency: 2, maxPagesPerDay: undefined });
      expect(pages.at(-1)).toBe(planned + endAhead - 1);
    }
  });
});

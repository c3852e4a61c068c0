import { describe, expect, it } from 'vitest';
import { type AnsweredPage, walkRequestPaths } from '../../bench/walkRequestPaths.ts';

const H = '/backend/api/v1/session/history';
const page = (day: string, n: number, items: number, size = 3): AnsweredPage => ({
  path: `${H}/${day}/${day}?page=${n}&size=3`,
  body: JSON.stringify({ content: Array.from({ length: items }, (_, i) => ({ i })), size, number: n }),
});

describe('walkRequestPaths', () => {
  it('asks for the page after a full last page, right after it, and for nothing after a short one', () => {
    const paths = walkRequestPaths(
      [
        page('2026-11-01', 0, 3),
        page('2026-11-01', 1, 3),
        page('2026-11-02', 0, 3),
        page('2026-11-02', 1, 2),
        page('2026-11-03', 0, 0),
      ],
      3,
    );
    expect(paths).toEqual([
      `${H}/2026-11-01/2026-11-01?page=0&size=3`,
      `${H}/2026-11-01/2026-11-01?page=1&size=3`,
      `${H}/2026-11-01/2026-11-01?page=2&size=3`,
      `${H}/2026-11-02/2026-11-02?page=0&size=3`,
      `${H}/2026-11-02/2026-11-02?page=1&size=3`,
      `${H}/2026-11-03/2026-11-03?page=0&size=3`,
    ]);
  });

  it('finds a day\u2019s last page whatever order its pages were answered in', () => {
    // Pages of one day fetched two at a time may be recorded out of order.
    const paths = walkRequestPaths(
      [page('2026-11-01', 0, 3), page('2026-11-01', 2, 3), page('2026-11-01', 1, 3)],
      3,
    );
    expect(paths.at(-1)).toBe(`${H}/2026-11-01/2026-11-01?page=3&size=3`);
    expect(paths).toHaveLength(4);
  });

  it('judges a page full by the size the server echoed (a capped size)', () => {
    // Asked for 3, the server cut pages at 2: a page of 2 is full, so its end must be proved.
    const capped = [page('2026-11-01', 0, 2, 2)];
    expect(walkRequestPaths(capped, 3)).toHaveLength(2);
    expect(walkRequestPaths([page('2026-11-01', 0, 2)], 3)).toHaveLength(1);
  });
});

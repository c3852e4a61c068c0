import type { WalkProgress } from '../state/dayState.ts';

/** What a walk the deadline cut still needs before its day is proven complete, and how long that takes. */
export interface WalkOutlook {
  /** Pages of the current pass not fetched yet, by the day's totals (the end page included when needed). */
  pagesLeft: number;
  /** The evidence the completeness rules still wait for, in words (see `walkDay`). */
  evidence: string[];
  /** Runs like this one still needed at this run's pace; absent when this run fetched no page. */
  runsExpected?: number;
}

/**
 * The outlook of a cut walk, from where it stands (`progress`), the distinct rows it holds and the pages
 * this run fetched. Pages left count from the first page not absorbed to the end the totals imply: the
 * largest `totalElements` (or the rows a short page proved), plus the empty page that proves the end of a
 * total that fills its last page. The evidence follows the walk's rules: the pass must reach a short page;
 * the union must reach the totals; once the totals were caught lying, a whole pass must add nothing.
 */
export function walkOutlook(progress: WalkProgress, distinct: number, pagesThisRun: number): WalkOutlook {
  const size = Math.max(1, progress.size);
  const target = Math.max(0, progress.observed, ...progress.totals);
  const wholePages = target > 0 && target % size === 0 ? 1 : 0;
  const endPage = Math.max(progress.planned, Math.ceil(target / size)) + wholePages;
  const pagesLeft = Math.max(1, endPage - progress.nextPage);
  const evidence = [`the pass's end (a page shorter than ${size})`];
  if (distinct < target) evidence.push(`${target - distinct} more row(s) to reach the total ${target}`);
  const lied = new Set(progress.totals).size > 1 || distinct > target;
  if (lied) evidence.push('a whole pass that adds nothing (the totals moved)');
  const runsForPages = pagesThisRun > 0 ? Math.ceil(pagesLeft / pagesThisRun) : undefined;
  const proofRuns = lied ? Math.ceil(endPage / Math.max(1, pagesThisRun)) : 0;
  return {
    pagesLeft,
    evidence,
    ...(runsForPages === undefined ? {} : { runsExpected: runsForPages + proofRuns }),
  };
}

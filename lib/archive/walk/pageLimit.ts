import { ArchiverError, type Day } from '../../foundation/index.ts';

/**
 * The one `PAGE_LIMIT` error of a walk (a day's walk and a fan-out range alike): the day needs more pages of
 * the echoed `size` than `cap` (`pageCap`). Not retryable: the day is recorded failed and the run goes on.
 */
export function pageLimit(day: Day, pages: number, size: number, cap: number): ArchiverError {
  return new ArchiverError(
    'PAGE_LIMIT',
    `history day ${day} needs ${pages} pages of ${size}, more than its cap of ${cap} (MAX_PAGES_PER_DAY, or unset ` +
      'the pages of the largest day the archive proves); raise MAX_PAGES_PER_DAY if the day is really that large',
    { details: { day, pages, size, cap } },
  );
}

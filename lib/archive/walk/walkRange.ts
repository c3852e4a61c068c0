import { type Day, Limiter, mapLimit } from '../../foundation/index.ts';
import { pageCap } from '../config/walkLimits.ts';
import type { HistoryPage, RejectedRecord } from '../records/schemas.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';
import { type AbsorbOptions, pageAbsorber } from './pageAbsorber.ts';
import { pageLimit } from './pageLimit.ts';
import { PAGES_HELD_PER_REQUEST } from './walkDay.ts';

export interface RangeWalkOptions extends AbsorbOptions {
  /** Pages `[from, to)` at page size `size` (the size the server echoed for this pass). */
  from: number;
  to: number;
  size: number;
  /** The last range of a pass: it goes on past `to` while pages are full, until a short or empty page. */
  last: boolean;
  concurrency: number;
  /** `MAX_PAGES_PER_DAY` when set; else the cap follows from the page size (`pageCap`). */
  maxPagesPerDay: number | undefined;
  signal?: AbortSignal;
}

export interface RangeWalkResult {
  pages: number;
  /** The first page of the range shorter than `size` (where the pass ended), if the range met one. */
  short?: { page: number; length: number };
  /** Every `totalElements` the range's pages reported. */
  totals: number[];
  rejected: Map<string, RejectedRecord>;
}

/**
 * A walk of one day restricted to the pages `[from, to)` of one pass: the fan-out's unit of work. Its rows
 * go to the sink like a whole walk's; what proves the day complete is not decided here but by the finish
 * step over the union (by `record_id`) of every range of the pass, under `walkDay`'s rules: the pass ends
 * at its first short page, and the union must reach both the totals and the rows that page implies.
 */
export async function walkRange(
  api: UpstreamApi,
  day: Day,
  options: RangeWalkOptions,
): Promise<RangeWalkResult> {
  const rejected = new Map<string, RejectedRecord>();
  const totals = new Set<number>();
  const lengths = new Map<number, number>();
  const absorbRows = pageAbsorber(options, rejected);
  const opts = options.signal ? { signal: options.signal } : {};
  const { size } = options;
  const absorb = async (n: number, page: HistoryPage): Promise<void> => {
    totals.add(page.totalElements);
    lengths.set(n, page.content.length + page.rejected.length);
    await absorbRows(page);
  };
  const requests = new Limiter(options.concurrency);
  const cap = pageCap(options.maxPagesPerDay, size);
  const to = Math.min(options.to, cap);
  await mapLimit(
    Array.from({ length: Math.max(0, to - options.from) }, (_, i) => i + options.from),
    PAGES_HELD_PER_REQUEST * options.concurrency,
    async (n) =>
      absorb(n, await requests.runGated((gate) => api.historyPage(day, day, n, size, { ...opts, gate }))),
  );
  if (options.last) {
    let n = to - 1;
    while ((lengths.get(n) ?? size) >= size) {
      n++;
      if (n >= cap) throw pageLimit(day, n + 1, size, cap);
      await absorb(n, await api.historyPage(day, day, n, size, opts));
    }
  }
  const shortPages = [...lengths].filter(([, length]) => length < size).sort((a, b) => a[0] - b[0]);
  const first = shortPages[0];
  return {
    pages: lengths.size,
    ...(first ? { short: { page: first[0], length: first[1] } } : {}),
    totals: [...totals],
    rejected,
  };
}

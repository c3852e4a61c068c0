import type { Day } from '../clock/day.ts';
import { rawRecordId, recordId } from '../records/recordId.ts';
import { partitionOf } from '../records/toArchiveRow.ts';
import type { HistoryPage, RejectedRecord } from '../upstream/schemas.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';
import { mapLimit } from './mapLimit.ts';
import type { RecordSpill } from './recordSpill.ts';

export interface WalkOptions {
  pageSize: number;
  concurrency: number;
  maxPasses: number;
  signal?: AbortSignal;
  /** Where distinct records go (local disk); the walk keeps only their ids. */
  spill: RecordSpill;
}

export interface WalkResult {
  day: Day;
  /** Distinct valid records: record id -> partition (UTC day of start_time). The records are in the spill. */
  records: Map<string, Day>;
  /** Distinct invalid items by raw id. */
  rejected: Map<string, RejectedRecord>;
  /** Highest `totalElements` the API reported during the walk. */
  totalElements: number;
  passes: number;
  pages: number;
  /** `totalElements` minus distinct items collected; 0 when the walk is complete. */
  shortfall: number;
}

/**
 * Collects every record of one history day. Pages are unsorted offset pages whose order may change
 * between requests, so one walk can skip or repeat rows: the walk unions pages by record id and
 * walks again until the union reaches `totalElements` or `maxPasses` is spent.
 */
export async function walkDay(api: UpstreamApi, day: Day, options: WalkOptions): Promise<WalkResult> {
  const records = new Map<string, Day>();
  const rejected = new Map<string, RejectedRecord>();
  let total = 0;
  let pages = 0;
  let passes = 0;
  const opts = options.signal ? { signal: options.signal } : {};

  const absorb = async (page: HistoryPage) => {
    pages++;
    total = Math.max(total, page.totalElements);
    for (const r of page.content) {
      const id = recordId(r);
      if (records.has(id)) continue;
      records.set(id, partitionOf(r));
      await options.spill.add(id, r);
    }
    for (const r of page.rejected) rejected.set(rawRecordId(r.raw), r);
  };
  const collected = () => records.size + rejected.size;

  while (passes < options.maxPasses) {
    passes++;
    const first = await api.historyPage(day, day, 0, options.pageSize, opts);
    await absorb(first);
    // The server may cap the page size silently: the size it echoes is the truth.
    const size = first.size > 0 ? first.size : Math.max(first.content.length + first.rejected.length, 1);
    const pageCount = Math.max(first.totalPages, Math.ceil(total / size));
    const rest = Array.from({ length: Math.max(0, pageCount - 1) }, (_, i) => i + 1);
    await mapLimit(rest, options.concurrency, async (n) =>
      absorb(await api.historyPage(day, day, n, size, opts)),
    );
    // Rows inserted mid-walk grow the total: one more page may hold them.
    const grown = Math.ceil(total / size);
    for (let n = pageCount; n < grown; n++) await absorb(await api.historyPage(day, day, n, size, opts));
    if (collected() >= total) break;
  }
  return {
    day,
    records,
    rejected,
    totalElements: total,
    passes,
    pages,
    shortfall: Math.max(0, total - collected()),
  };
}

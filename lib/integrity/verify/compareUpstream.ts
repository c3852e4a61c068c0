import { DistinctRows, keyRecord, type UpstreamApi, walkDay, windowStartOf } from '../../archive/index.ts';
import { type Day, dayRange } from '../../foundation/index.ts';
import { classifyAbsent } from './lastScans.ts';
import type { VerifyDay, VerifyFailure } from './verifyTypes.ts';

export interface CompareOptions {
  today: Day;
  windowDays: number;
  pageSize: number;
  concurrency: number;
  maxPasses: number;
  maxPagesPerDay: number | undefined;
  graceMs: number;
  /** The archive's token key: `record_id` is keyed, so comparing with the API needs it. */
  tokenKey: Uint8Array;
  /**
   * When the newest digest was written (epoch ms): for a day no run ever scanned completely, every run up
   * to then should have, so a record that ended before it is missing, not pending.
   */
  newestRunMs?: number;
  /** The first day to compare (`verify --since`): the days before it are left to the full check. */
  fromDay?: Day;
}

/** Walks every window day of the API and splits what the archive lacks into pending and missing. */
export async function compareUpstream(
  api: UpstreamApi,
  archived: ReadonlySet<string>,
  lastScans: ReadonlyMap<string, number>,
  opts: CompareOptions,
): Promise<{ days: VerifyDay[]; failures: VerifyFailure[] }> {
  const days: VerifyDay[] = [];
  const failures: VerifyFailure[] = [];
  const archivedAt = new Date(0);
  const windowStart = windowStartOf(opts.today, opts.windowDays);
  const first = opts.fromDay !== undefined && opts.fromDay > windowStart ? opts.fromDay : windowStart;
  for (const day of dayRange(first, opts.today)) {
    const lastScan = lastScans.get(day) ?? opts.newestRunMs;
    const row: VerifyDay = {
      day,
      upstream: 0,
      archived: 0,
      pending: 0,
      missing: 0,
      lastScanAt: lastScan === undefined ? null : new Date(lastScan).toISOString(),
    };
    const walk = await walkDay(api, day, {
      pageSize: opts.pageSize,
      concurrency: opts.concurrency,
      maxPasses: opts.maxPasses,
      maxPagesPerDay: opts.maxPagesPerDay,
      tokenKey: opts.tokenKey,
      // Ids are the same under every token policy; `drop` keeps token values out of memory.
      keyRecord: (record) => keyRecord(record, { tokenPolicy: 'drop', tokenKey: opts.tokenKey, archivedAt }),
      // Each distinct record is classified as it arrives: nothing is kept but counts.
      sink: new DistinctRows((record) => {
        if (archived.has(record.record_id)) {
          row.archived++;
          return undefined;
        }
        const endMs = record.end_time === null ? null : record.end_time.getTime();
        row[classifyAbsent(endMs, lastScan, opts.graceMs)]++;
        return undefined;
      }),
    });
    row.upstream = walk.distinct;
    if (row.missing > 0) {
      failures.push({
        kind: 'missing-records',
        day,
        message: `${day}: ${row.missing} record(s) the API has and a complete scan at ${row.lastScanAt} should have archived are missing`,
      });
    }
    days.push(row);
  }
  return { days, failures };
}

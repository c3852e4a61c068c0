import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Day, dayRange } from '../clock/day.ts';
import { windowStartOf } from '../engine/planDays.ts';
import { RowSpill } from '../engine/rowSpill.ts';
import { walkDay } from '../engine/walkDay.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import { toArchiveRow } from '../records/toArchiveRow.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';
import { classifyAbsent } from './lastScans.ts';
import type { VerifyDay, VerifyFailure } from './verifyTypes.ts';

export interface CompareOptions {
  today: Day;
  windowDays: number;
  pageSize: number;
  concurrency: number;
  maxPasses: number;
  maxPagesPerDay: number;
  graceMs: number;
  /** The archive's token key: `record_id` is keyed, so comparing with the API needs it. */
  tokenKey: Uint8Array;
  /**
   * When the newest digest was written (epoch ms): for a day no run ever scanned completely, every run up
   * to then should have, so a record that ended before it is missing, not pending.
   */
  newestRunMs?: number;
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
  const dir = await mkdtemp(join(tmpdir(), 'ta-verify-'));
  try {
    for (const day of dayRange(windowStartOf(opts.today, opts.windowDays), opts.today)) {
      const spill = new RowSpill<ArchiveRow>(join(dir, `${day}.jsonl`));
      const archivedAt = new Date(0);
      try {
        const walk = await walkDay(api, day, {
          pageSize: opts.pageSize,
          concurrency: opts.concurrency,
          maxPasses: opts.maxPasses,
          maxPagesPerDay: opts.maxPagesPerDay,
          tokenKey: opts.tokenKey,
          // Ids are the same under every token policy; `drop` keeps token values out of the spill.
          toRow: (record) =>
            toArchiveRow(record, { tokenPolicy: 'drop', tokenKey: opts.tokenKey, archivedAt }),
          spill,
        });
        const lastScan = lastScans.get(day) ?? opts.newestRunMs;
        const row: VerifyDay = {
          day,
          upstream: walk.distinct,
          archived: 0,
          pending: 0,
          missing: 0,
          lastScanAt: lastScan === undefined ? null : new Date(lastScan).toISOString(),
        };
        if (walk.distinct > 0) {
          for await (const [id, record] of spill.read()) {
            if (archived.has(id)) {
              row.archived++;
              continue;
            }
            const endMs = record.end_time === null ? null : record.end_time.getTime();
            row[classifyAbsent(endMs, lastScan, opts.graceMs)]++;
          }
        }
        if (row.missing > 0) {
          failures.push({
            kind: 'missing-records',
            day,
            message: `${day}: ${row.missing} record(s) the API has and a complete scan at ${row.lastScanAt} should have archived are missing`,
          });
        }
        days.push(row);
      } finally {
        await spill.remove();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { days, failures };
}

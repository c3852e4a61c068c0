import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock/clock.ts';
import { addDays, toDay } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import type { VersionedItems } from '../state/versionedItems.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { OcsfRule } from './findingsOcsfSql.ts';
import type { OcsfArchive, OcsfDays } from './ocsfArchive.ts';
import { OCSF_1_1 } from './ocsfProfile.ts';
import { hourOf, type LakeSource, lakeKey } from './securityLakeLayout.ts';

const HOUR_MS = 3_600_000;

/** The state item of a source's cursor: the first hour not written yet. */
export const lakeCursorKey = (source: LakeSource) =>
  `LAKE#${source.cls}#${source.location.bucket}/${source.location.prefix}`;

export interface SecurityLakeDeps {
  /** The archive's partitions in `days`, opened for the mapping (the handler copies them from S3). */
  openArchive(days: OcsfDays): Promise<OcsfArchive>;
  /** The lake bucket as seen through the source's provider role (assumed with its external id). */
  lakeStore(source: LakeSource): Promise<ObjectStore>;
  /** Where the cursors live (the state table). */
  items: VersionedItems;
  rules: readonly OcsfRule[];
  clock: Clock;
  logger: Logger;
  tmpDir: string;
}

export interface SecurityLakeOptions {
  sources: readonly LakeSource[];
  region: string;
  accountId: string;
  /**
   * Hours after an hour ends before it is written: time for its sessions to reach history (the
   * archiver's lag) and for findings to be evaluated. Events that reach the archive later are not sent.
   */
  settleHours: number;
  /** Hours one run writes at most per source; the cursor keeps the rest for the next run. */
  maxHours: number;
  /** Days of partitions before an hour's own day that its events may come from (a session that began earlier). */
  lookbackDays: number;
  /** The first hour a fresh cursor starts at (default: one day before the last settled hour). */
  firstHour?: Date;
}

export interface SourceResult {
  cls: LakeSource['cls'];
  hours: number;
  files: number;
  events: number;
  /** Hours whose file another run (or an earlier try) had written already. */
  alreadyWritten: number;
}

interface Cursor {
  version: number;
  next: Date;
}

async function readCursor(items: VersionedItems, key: string, fallback: Date): Promise<Cursor> {
  const item = await items.get(key);
  if (item === undefined) return { version: 0, next: fallback };
  const next = new Date(String((JSON.parse(item.data) as { next?: string }).next));
  if (Number.isNaN(next.getTime()))
    throw new ArchiverError('SCHEMA_MISMATCH', `the Security Lake cursor ${key} holds no hour`);
  return { version: item.version, next };
}

/**
 * One scheduled run of the Security Lake custom sources: for each source, every hour from its cursor
 * that has settled, at most `maxHours`: that hour's events (OCSF 1.1.0: Network Activity 4001 for
 * sessions, Detection Finding 2004 for findings), sorted by time, as one Parquet file under the lake's
 * layout, written once (`putIfAbsent`: a retry or a concurrent run finds it there), then the cursor moves
 * past the hour (a conditional write; a run that loses the race re-reads it). An hour without events
 * writes no file. A fresh cursor starts one day before the first settled hour.
 */
export async function writeSecurityLake(
  deps: SecurityLakeDeps,
  o: SecurityLakeOptions,
): Promise<SourceResult[]> {
  const lastSettled = hourOf(new Date(deps.clock.now().getTime() - (o.settleHours + 1) * HOUR_MS));
  const results: SourceResult[] = [];
  // A folder of this run's own: a concurrent run beside it never touches its files.
  const work = await mkdtemp(join(deps.tmpDir, 'lake-run-'));
  try {
    await writeSources(deps, o, lastSettled, work, results);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return results;
}

async function writeSources(
  deps: SecurityLakeDeps,
  o: SecurityLakeOptions,
  lastSettled: Date,
  work: string,
  results: SourceResult[],
): Promise<void> {
  for (const source of o.sources) {
    const key = lakeCursorKey(source);
    let cursor = await readCursor(
      deps.items,
      key,
      o.firstHour ? hourOf(o.firstHour) : new Date(lastSettled.getTime() - 23 * HOUR_MS),
    );
    const result: SourceResult = { cls: source.cls, hours: 0, files: 0, events: 0, alreadyWritten: 0 };
    results.push(result);
    if (cursor.next > lastSettled) continue;
    const lastHour = new Date(
      Math.min(lastSettled.getTime(), cursor.next.getTime() + (o.maxHours - 1) * HOUR_MS),
    );
    const archive = await deps.openArchive({
      fromDay: addDays(toDay(cursor.next), -o.lookbackDays),
      untilDay: toDay(lastHour),
    });
    const lake = await deps.lakeStore(source);
    try {
      const span = { fromMs: cursor.next.getTime(), toMs: lastHour.getTime() + HOUR_MS };
      await archive.prepare(source.cls, OCSF_1_1, deps.rules, span);
      while (cursor.next <= lastHour) {
        const hour = cursor.next;
        const path = join(work, `${source.cls}-${hour.getTime()}.parquet`);
        const window = { fromMs: hour.getTime(), toMs: hour.getTime() + HOUR_MS };
        const events = await archive.writeParquet(source.cls, OCSF_1_1, deps.rules, window, path);
        if (events > 0) {
          const created = await lake.putIfAbsent(
            lakeKey(source, o.region, o.accountId, hour),
            await readFile(path),
          );
          if (created) {
            result.files++;
            result.events += events;
          } else result.alreadyWritten++;
        }
        await rm(path, { force: true });
        const next = new Date(hour.getTime() + HOUR_MS);
        try {
          await deps.items.put(key, cursor.version, JSON.stringify({ next: next.toISOString() }));
          cursor = { version: cursor.version + 1, next };
        } catch (e) {
          if ((e as ArchiverError).code !== 'CONFLICT') throw e;
          // Another run moved the cursor: go on from where it stands.
          cursor = await readCursor(deps.items, key, next);
        }
        result.hours++;
      }
    } finally {
      archive.close();
      await lake.close?.();
    }
    deps.logger.info('security lake source written', { ...result });
  }
}

import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { archiveKeys, type ObjectStore, type VersionedItems } from '../../archive/index.ts';
import { addDays, type Clock, type Day, type Logger } from '../../foundation/index.ts';
import { type ArchiveHour, ArchiveHours } from './archiveHours.ts';
import { copyArchiveDays } from './copyArchiveDays.ts';
import type { OcsfRule } from './detectionFindingMapping.ts';
import { moveLakeCursor, noteSentFiles, readLakeCursor, readSentFiles } from './lakeProgress.ts';
import { openOcsfArchive } from './ocsfArchive.ts';
import { OCSF_1_1 } from './ocsfProfile.ts';
import { type LakeSource, lakeKey } from './securityLakeLayout.ts';

export { lakeCursorKey } from './lakeProgress.ts';

const HOUR_MS = 3_600_000;
const ALL_TIME = { fromMs: Number.MIN_SAFE_INTEGER, toMs: Number.MAX_SAFE_INTEGER };

export interface SecurityLakeDeps {
  /** The archive's store: its digest chain, `history/` and `findings/` (read only). */
  archive: ObjectStore;
  /** The lake bucket as seen through the source's provider role (assumed with its external id). */
  lakeStore(source: LakeSource): Promise<ObjectStore>;
  /** Where the cursors and the sent files live (the state table). */
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
   * Hours after an archive hour ends before it is sent: a session's Open event carries its latest
   * revision when it is sent, so waiting gathers more of it. Nothing archived is ever skipped.
   */
  settleHours: number;
  /** Archive hours one run sends at most per source; the cursor keeps the rest for the next run. */
  maxHours: number;
  /** Days of history before a finding's partition read to resolve its `related_events`. */
  lookbackDays: number;
  /** The digest position a fresh cursor starts at (default 1: the whole archive, `maxHours` a run). */
  firstSeq?: number;
}

export interface SourceResult {
  cls: LakeSource['cls'];
  /** Archive hours this run went through. */
  hours: number;
  files: number;
  events: number;
  /** Files another run (or an earlier try) had written already. */
  alreadyWritten: number;
}

/**
 * One scheduled run of the Security Lake custom sources. The cursor follows what was archived, not event
 * time: for each source, every archive hour (lib/analytics/ocsf/archiveHours.ts: the digests written in one hour,
 * which list each data file once) from its cursor that has settled, at most `maxHours`. The events an
 * archive hour adds are those its files (history/ for sessions, findings/ for findings) produce and the
 * files sent before it (per partition day, with the digest that listed them) did not, by
 * `metadata.uid`: a session first archived days late gets its Open then, a revision that ends it its
 * Close, a finding written late its Create or Update. They are written (OCSF 1.1.0, sorted by time) as
 * one Parquet file per event day, named after the archive hour, write-once; then the partitions' sent
 * files and the cursor move (conditional writes). A retry or a concurrent run computes the same events
 * under the same names (what was sent before an archive hour is read by digest position), so each event
 * reaches the lake once.
 */
export async function writeSecurityLake(
  deps: SecurityLakeDeps,
  o: SecurityLakeOptions,
): Promise<SourceResult[]> {
  const results: SourceResult[] = [];
  // A folder of this run's own: a concurrent run beside it never touches its files.
  const work = await mkdtemp(join(deps.tmpDir, 'lake-run-'));
  try {
    const hours = new ArchiveHours(deps.archive);
    for (const source of o.sources) results.push(await writeSource(deps, o, source, hours, work));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return results;
}

async function writeSource(
  deps: SecurityLakeDeps,
  o: SecurityLakeOptions,
  source: LakeSource,
  hours: ArchiveHours,
  work: string,
): Promise<SourceResult> {
  const result: SourceResult = { cls: source.cls, hours: 0, files: 0, events: 0, alreadyWritten: 0 };
  const settled = deps.clock.now().getTime() - o.settleHours * HOUR_MS;
  let cursor = await readLakeCursor(deps.items, source, o.firstSeq ?? 1);
  let lake: ObjectStore | undefined;
  try {
    while (result.hours < o.maxHours) {
      const hour = await hours.startingAt(cursor.seq);
      if (hour === undefined || hour.hour.getTime() + HOUR_MS > settled) break;
      if (sentFilesOf(source, hour).length > 0) {
        lake ??= await deps.lakeStore(source);
        await sendArchiveHour(
          deps,
          o,
          source,
          hour,
          lake,
          join(work, `${source.cls}-${hour.firstSeq}`),
          result,
        );
      }
      cursor = await moveLakeCursor(deps.items, source, cursor, Math.max(cursor.seq, hour.lastSeq + 1));
      result.hours++;
    }
  } finally {
    await lake?.close?.();
  }
  deps.logger.info('security lake source written', { ...result, nextDigest: cursor.seq });
  return result;
}

/** The files of an archive hour a source sends: history/ for sessions, findings/ for findings. */
const sentFilesOf = (source: LakeSource, hour: ArchiveHour) =>
  hour.files.filter(
    (f) => f.dataset === (source.cls === 'sessions' ? 'history' : 'findings') && f.dt !== null,
  );

async function sendArchiveHour(
  deps: SecurityLakeDeps,
  o: SecurityLakeOptions,
  source: LakeSource,
  hour: ArchiveHour,
  lake: ObjectStore,
  dir: string,
  result: SourceResult,
): Promise<void> {
  const added = sentFilesOf(source, hour);
  const days = [...new Set(added.map((f) => f.dt as Day))].sort();
  const sent = await readSentFiles(deps.items, source, days);
  // What was sent before this archive hour: by digest position, whatever later runs have noted since.
  const before = [...sent.values()].flatMap((files) =>
    Object.entries(files)
      .filter(([, seq]) => seq < hour.firstSeq)
      .map(([key]) => key),
  );
  const allDir = join(dir, 'all');
  const beforeDir = join(dir, 'before');
  await mkdir(beforeDir, { recursive: true });
  // Each archive file is read once a run (a run that catches up goes through a day many times).
  const cache = join(dirname(dir), 'cache');
  for (const key of before) {
    await fetchOnce(deps.archive, key, cache, join(beforeDir, key));
    await linkTo(join(beforeDir, key), join(allDir, key));
  }
  for (const f of added) await fetchOnce(deps.archive, f.key, cache, join(allDir, f.key));
  const first = days[0] as Day;
  const last = days.at(-1) as Day;
  const fromDay = source.cls === 'findings' ? addDays(first, -o.lookbackDays) : first;
  // A finding's related sessions: the history of its days and the lookback before them.
  if (source.cls === 'findings')
    await copyArchiveDays(deps.archive, allDir, { fromDay, untilDay: last }, [archiveKeys.historyPrefix]);
  const archive = await openOcsfArchive(allDir, { fromDay, untilDay: last }, { before: beforeDir });
  try {
    await archive.prepare(source.cls, OCSF_1_1, deps.rules, ALL_TIME);
    for (const eventDay of await archive.eventDays(source.cls, OCSF_1_1, deps.rules, ALL_TIME)) {
      const from = Date.parse(`${eventDay}T00:00:00Z`);
      const path = join(dir, `${eventDay}.parquet`);
      const window = { fromMs: from, toMs: from + 24 * HOUR_MS };
      const events = await archive.writeParquet(source.cls, OCSF_1_1, deps.rules, window, path);
      if (events === 0) continue;
      const created = await lake.putIfAbsent(
        lakeKey(source, o.region, o.accountId, eventDay, hour),
        await readFile(path),
      );
      if (created) {
        result.files++;
        result.events += events;
      } else result.alreadyWritten++;
    }
  } finally {
    archive.close();
    await rm(dir, { recursive: true, force: true });
  }
  for (const day of days)
    await noteSentFiles(
      deps.items,
      source,
      day,
      Object.fromEntries(added.filter((f) => f.dt === day).map((f) => [f.key, hour.firstSeq])),
    );
}

/** Links `path` to the run's copy of `key` in `cache`, read from the archive the first time. */
async function fetchOnce(objects: ObjectStore, key: string, cache: string, path: string): Promise<void> {
  const cached = join(cache, key);
  if (!existsSync(cached)) {
    const body = await objects.get(key);
    if (body === undefined) return;
    await mkdir(dirname(cached), { recursive: true });
    await writeFile(cached, body);
  }
  await linkTo(cached, path);
}

/** `to` as a hard link of `from` (a copy where the file system has none); an existing `to` stays. */
async function linkTo(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await link(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') await copyFile(from, to);
  }
}

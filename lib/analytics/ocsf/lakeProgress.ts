import type { VersionedItems } from '../../archive/index.ts';
import { ArchiverError, type Day } from '../../foundation/index.ts';
import type { LakeSource } from './securityLakeLayout.ts';

/** The state item of a source's cursor: the first digest position not written to the lake yet. */
export const lakeCursorKey = (source: LakeSource) =>
  `LAKE#${source.cls}#${source.location.bucket}/${source.location.prefix}`;

/** The state item listing, for one partition day, the archive files a source has sent and their digest. */
export const lakeSentKey = (source: LakeSource, day: Day) => `${lakeCursorKey(source)}#dt=${day}`;

export interface LakeCursor {
  version: number;
  /** The next digest position (the first of an archive hour). */
  seq: number;
}

/** A source's cursor, or `{ version: 0, seq: firstSeq }` when it has none. */
export async function readLakeCursor(
  items: VersionedItems,
  source: LakeSource,
  firstSeq: number,
): Promise<LakeCursor> {
  const key = lakeCursorKey(source);
  const item = await items.get(key);
  if (item === undefined) return { version: 0, seq: firstSeq };
  const seq = (JSON.parse(item.data) as { seq?: unknown }).seq;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1)
    throw new ArchiverError('SCHEMA_MISMATCH', `the Security Lake cursor ${key} holds no digest position`);
  return { version: item.version, seq };
}

/**
 * Moves the cursor from `cursor` to `seq` (a conditional write). A run that loses the race to another
 * one gets the cursor as that run left it.
 */
export async function moveLakeCursor(
  items: VersionedItems,
  source: LakeSource,
  cursor: LakeCursor,
  seq: number,
): Promise<LakeCursor> {
  try {
    await items.put(lakeCursorKey(source), cursor.version, JSON.stringify({ seq }));
    return { version: cursor.version + 1, seq };
  } catch (e) {
    if ((e as ArchiverError).code !== 'CONFLICT') throw e;
    return readLakeCursor(items, source, seq);
  }
}

/** The archive files of each day a source has sent, each with the digest position that listed it. */
export type SentFiles = Map<Day, Record<string, number>>;

const filesOf = (data: string) => (JSON.parse(data) as { files: Record<string, number> }).files;

/** What a source has sent of the partitions `days` (one read per day). */
export async function readSentFiles(
  items: VersionedItems,
  source: LakeSource,
  days: readonly Day[],
): Promise<SentFiles> {
  const read = await Promise.all(days.map((d) => items.get(lakeSentKey(source, d))));
  return new Map(days.map((d, i) => [d, read[i] === undefined ? {} : filesOf(read[i].data)]));
}

/**
 * Adds `files` (key → digest position) to what a source has sent of `day`: a merge, so a retry or a
 * concurrent run adding the same files changes nothing; a lost race re-reads and merges again.
 */
export async function noteSentFiles(
  items: VersionedItems,
  source: LakeSource,
  day: Day,
  files: Record<string, number>,
): Promise<void> {
  const key = lakeSentKey(source, day);
  for (let attempt = 1; ; attempt++) {
    const item = await items.get(key);
    const known = item === undefined ? {} : filesOf(item.data);
    if (Object.keys(files).every((k) => known[k] !== undefined)) return;
    try {
      await items.put(key, item?.version ?? 0, JSON.stringify({ files: { ...known, ...files } }));
      return;
    } catch (e) {
      if ((e as ArchiverError).code !== 'CONFLICT' || attempt >= 5) throw e;
    }
  }
}

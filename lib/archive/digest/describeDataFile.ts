import { createHash } from 'node:crypto';
import { type FileMetaData, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { dataKeyInfo } from '../commit/archiveKeys.ts';
import { READ_COMPRESSORS as compressors } from '../parquet/readCompressors.ts';
import { sourceAsyncBuffer } from '../parquet/readHistoryParquet.ts';
import { type ByteSource, toSource } from '../store/byteSource.ts';
import type { DigestFile } from './digestSchema.ts';

/** The column whose range a digest records, per dataset. */
const TIME_COLUMN = { history: 'start_time', active: 'observed_at', findings: 'detected_at', quarantine: '' };

/** Bytes read per request when hashing a stored file: memory holds one chunk, never the file. */
const HASH_CHUNK = 1024 * 1024;

export function sha256OfBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * SHA-256 of a source, read chunk by chunk into one buffer (a store that can reads into it): hashing an
 * 80 MB file at the end of a run once left 80 chunks of garbage, 30 MiB above the run's steady RSS.
 */
export async function sha256OfSource(source: ByteSource): Promise<string> {
  const hash = createHash('sha256');
  const buffer = new Uint8Array(Math.min(HASH_CHUNK, source.byteLength));
  for (let at = 0; at < source.byteLength; at += HASH_CHUNK) {
    hash.update(await source.read(at, Math.min(source.byteLength, at + HASH_CHUNK), buffer));
  }
  return hash.digest('hex');
}

/** Footer of a Parquet source, or null when it is not readable Parquet. */
async function footerOf(source: ByteSource): Promise<FileMetaData | null> {
  try {
    return await parquetMetadataAsync(sourceAsyncBuffer(source));
  } catch {
    return null;
  }
}

/** Row count from the Parquet footer, or null when the bytes are not a readable Parquet file. */
export async function parquetRowCount(source: ByteSource | Uint8Array): Promise<number | null> {
  const meta = await footerOf(toSource(source));
  return meta === null ? null : Number(meta.num_rows);
}

/**
 * What a digest records of one data file: SHA-256 and size of the bytes, rows from the footer, and the
 * time range of `start_time` (history), `observed_at` (active) or `detected_at` (findings): from the footer's column statistics
 * when every row group has them, else by reading that column one row group at a time. Memory holds a
 * hash chunk or a row group, never the file.
 */
export async function describeDataFile(key: string, source: ByteSource | Uint8Array): Promise<DigestFile> {
  const src = toSource(source);
  const { dataset, dt } = dataKeyInfo(key);
  const meta = dataset === 'quarantine' ? null : await footerOf(src);
  const rows = meta === null ? null : Number(meta.num_rows);
  let range: { lo: number; hi: number } | undefined;
  if (meta !== null && rows !== null && rows > 0) {
    const column = TIME_COLUMN[dataset];
    range = statisticsRange(meta, column) ?? (await scannedRange(src, meta, column));
  }
  return {
    key,
    sha256: await sha256OfSource(src),
    bytes: src.byteLength,
    rows,
    dataset,
    dt,
    min: range ? new Date(range.lo).toISOString() : null,
    max: range ? new Date(range.hi).toISOString() : null,
  };
}

/** The column's min and max from chunk statistics, when every row group has both. */
function statisticsRange(meta: FileMetaData, column: string): { lo: number; hi: number } | undefined {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const group of meta.row_groups) {
    const chunk = group.columns.find((c) => c.meta_data?.path_in_schema.join('.') === column);
    const stats = chunk?.meta_data?.statistics;
    const min = toMs(stats?.min_value ?? stats?.min);
    const max = toMs(stats?.max_value ?? stats?.max);
    if (min === undefined || max === undefined) return undefined;
    lo = Math.min(lo, min);
    hi = Math.max(hi, max);
  }
  return lo <= hi ? { lo, hi } : undefined;
}

async function scannedRange(
  source: ByteSource,
  meta: FileMetaData,
  column: string,
): Promise<{ lo: number; hi: number } | undefined> {
  const file = sourceAsyncBuffer(source);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  try {
    let rowStart = 0;
    for (const group of meta.row_groups) {
      const rowEnd = rowStart + Number(group.num_rows);
      const values = await parquetReadObjects({
        file,
        metadata: meta,
        columns: [column],
        rowStart,
        rowEnd,
        compressors,
      });
      for (const v of values) {
        const t = toMs(v[column]);
        if (t === undefined) continue;
        lo = Math.min(lo, t);
        hi = Math.max(hi, t);
      }
      rowStart = rowEnd;
    }
  } catch {
    // No such column: the range stays unknown; the hash and rows still pin the file.
    return undefined;
  }
  return lo <= hi ? { lo, hi } : undefined;
}

function toMs(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  return undefined;
}

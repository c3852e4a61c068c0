import { createHash } from 'node:crypto';
import { parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { asyncBuffer } from '../parquet/readHistoryParquet.ts';
import { dataKeyInfo } from './digestKeys.ts';
import type { DigestFile } from './digestSchema.ts';

export function sha256OfBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Row count from the Parquet footer, or null when the bytes are not a readable Parquet file. */
export async function parquetRowCount(bytes: Uint8Array): Promise<number | null> {
  try {
    const meta = await parquetMetadataAsync(asyncBuffer(bytes));
    return Number(meta.num_rows);
  } catch {
    return null;
  }
}

/**
 * What a digest records of one data file: SHA-256 and size of the bytes, rows from the footer, and the
 * time range of `start_time` (history) or `observed_at` (active).
 */
export async function describeDataFile(key: string, bytes: Uint8Array): Promise<DigestFile> {
  const { dataset, dt } = dataKeyInfo(key);
  const rows = await parquetRowCount(bytes);
  let min: string | null = null;
  let max: string | null = null;
  if (rows !== null && rows > 0) {
    const column = dataset === 'active' ? 'observed_at' : 'start_time';
    try {
      const values = await parquetReadObjects({ file: asyncBuffer(bytes), columns: [column], compressors });
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const v of values) {
        const t = toMs(v[column]);
        if (t === undefined) continue;
        lo = Math.min(lo, t);
        hi = Math.max(hi, t);
      }
      if (lo <= hi) {
        min = new Date(lo).toISOString();
        max = new Date(hi).toISOString();
      }
    } catch {
      // No such column: the range stays unknown; the hash and rows still pin the file.
    }
  }
  return { key, sha256: sha256OfBytes(bytes), bytes: bytes.byteLength, rows, dataset, dt, min, max };
}

function toMs(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  return undefined;
}

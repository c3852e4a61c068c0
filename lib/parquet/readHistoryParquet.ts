import { type AsyncBuffer, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * The `record_id` column of an archive file, in file order: what dedupe needs from files already
 * written, without decoding the other columns.
 */
export async function readRecordIds(bytes: Uint8Array): Promise<string[]> {
  const rows = await parquetReadObjects({ file: asyncBuffer(bytes), columns: ['record_id'], compressors });
  return rows.map((row) => String(row.record_id));
}

/**
 * Every row of an archive file as plain objects (timestamps as `Date`, `domains` as `string[]`), for
 * verification and tests; reads any codec hyparquet-compressors knows (SNAPPY, ZSTD, GZIP, ...).
 */
export async function readHistoryRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  return parquetReadObjects({ file: asyncBuffer(bytes), compressors });
}

/** In-memory bytes as hyparquet's `AsyncBuffer`. */
export function asyncBuffer(bytes: Uint8Array): AsyncBuffer {
  return {
    byteLength: bytes.byteLength,
    slice: (start, end) => {
      const from = bytes.byteOffset + start;
      const to = bytes.byteOffset + (end ?? bytes.byteLength);
      return bytes.buffer.slice(from, to) as ArrayBuffer;
    },
  };
}

import { writeFile } from 'node:fs/promises';
import { type AsyncBuffer, parquetReadObjects } from 'hyparquet';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { ArchiverError } from '../../foundation/index.ts';
import {
  DEFAULT_PARQUET_COMPRESSION,
  type ParquetCompression,
  parquetCompressors,
} from '../parquet/parquetCompression.ts';
import { READ_COMPRESSORS } from '../parquet/readCompressors.ts';
import type { ActiveRow } from './activeRow.ts';
import { ACTIVE_BIGINT_COLUMNS, ACTIVE_COLUMN_NAMES, ACTIVE_PARQUET_SCHEMA } from './activeSchema.ts';

/**
 * Rows per row group of an active file. A snapshot usually yields a handful of rows (changes only): one
 * row group. The first snapshot of a busy account lists every open tunnel (20,000 in the million-record
 * bench), and the writer holds a byte array per string value of the group it encodes: groups of this size
 * keep that to a few MiB instead of 50 (measured).
 */
export const ACTIVE_ROW_GROUP_SIZE = 2048;

/** Encodes active rows as one Parquet file in memory, in row groups of {@link ACTIVE_ROW_GROUP_SIZE}. */
export async function activeParquetBytes(
  rows: readonly ActiveRow[],
  compression: ParquetCompression = DEFAULT_PARQUET_COMPRESSION,
): Promise<Uint8Array> {
  const writer = new ByteWriter();
  const parquet = new ParquetWriter({
    writer,
    schema: ACTIVE_PARQUET_SCHEMA,
    codec: compression,
    compressors: parquetCompressors(compression),
    statistics: true,
    createdBy: 'tunnel-archiver (hyparquet-writer 0.17.0)',
  });
  const columnData = ACTIVE_COLUMN_NAMES.map((name) => ({
    name,
    data: rows.map((row) => (ACTIVE_BIGINT_COLUMNS.has(name) ? BigInt(row[name] as number) : row[name])),
  }));
  if (rows.length > 0) await parquet.write({ columnData, rowGroupSize: ACTIVE_ROW_GROUP_SIZE });
  await parquet.finish();
  return new Uint8Array(writer.getBuffer());
}

/** Writes `rows` to `localPath` as one Parquet file; write failures become `STORE_FAILED`. */
export async function writeActiveParquet(
  rows: readonly ActiveRow[],
  localPath: string,
  compression?: ParquetCompression,
): Promise<{ rows: number; bytes: number }> {
  const bytes = await activeParquetBytes(rows, compression);
  try {
    await writeFile(localPath, bytes, { mode: 0o600 });
  } catch (cause) {
    throw new ArchiverError(
      'STORE_FAILED',
      `writing Parquet file ${localPath} failed: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  return { rows: rows.length, bytes: bytes.byteLength };
}

/** Every row of an `active/` file as `ActiveRow` (INT64 ids back to numbers). */
export async function readActiveRows(bytes: Uint8Array): Promise<ActiveRow[]> {
  const rows = await parquetReadObjects({ file: asyncBuffer(bytes), compressors: READ_COMPRESSORS });
  return rows.map(
    (raw) =>
      ({
        ...raw,
        user_id: Number(raw.user_id),
        token_id: Number(raw.token_id),
        // Files written before the column existed do not hold it.
        join_token_hmac: raw.join_token_hmac ?? null,
      }) as unknown as ActiveRow,
  );
}

function asyncBuffer(bytes: Uint8Array): AsyncBuffer {
  return {
    byteLength: bytes.byteLength,
    slice: (start, end) =>
      bytes.buffer.slice(
        bytes.byteOffset + start,
        bytes.byteOffset + (end ?? bytes.byteLength),
      ) as ArrayBuffer,
  };
}

import { open, rm } from 'node:fs/promises';
import { ParquetWriter } from 'hyparquet-writer';
import { ArchiverError } from '../errors/archiverError.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import { FileSinkWriter } from './fileSinkWriter.ts';
import { type HistoryColumnOptions, historyColumnOptions } from './historyColumnOptions.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from './historySchema.ts';
import {
  DEFAULT_PARQUET_COMPRESSION,
  type ParquetCompression,
  parquetCompressors,
} from './parquetCompression.ts';

export interface WriteHistoryParquetOptions {
  /** Rows per row group, and the most rows held in memory at once (default 100 000). */
  rowGroupSize?: number | undefined;
  /** Default: ZSTD where `node:zlib` has zstd, else SNAPPY; see `defaultParquetCompression`. */
  compression?: ParquetCompression | undefined;
  /**
   * A row group also ends once its rows' string and value bytes reach this (default 8 MiB), whatever
   * `rowGroupSize` says: encoding a group costs several times its payload in memory, so this bound, not
   * the row count, is what keeps a heavy day's peak RSS flat.
   */
  rowGroupBytes?: number | undefined;
}

export interface WriteHistoryParquetResult {
  rows: number;
  /** Size of the finished file in bytes. */
  bytes: number;
}

export const DEFAULT_ROW_GROUP_SIZE = 100_000;
export const DEFAULT_ROW_GROUP_BYTES = 8 * 1024 * 1024;

/**
 * Streams archive rows into one Parquet file at `localPath` with the explicit history schema. Rows are
 * pulled one row group at a time and that group is encoded and written before the next is pulled, so
 * memory is bounded by `rowGroupSize` and `rowGroupBytes`, not by the input. Encodings and statistics per column follow
 * `historyColumnOptions` (dictionary for low-cardinality strings, delta for ints, timestamps and unique
 * strings); the codec is recorded in every column chunk's metadata. On failure the partial file is
 * removed and the error rethrown (write failures as `STORE_FAILED`); errors thrown by the `rows` source
 * pass through unchanged.
 */
export async function writeHistoryParquet(
  rows: Iterable<ArchiveRow> | AsyncIterable<ArchiveRow>,
  localPath: string,
  opts: WriteHistoryParquetOptions = {},
): Promise<WriteHistoryParquetResult> {
  const rowGroupSize = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
  if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new ArchiverError('CONFIG_INVALID', `rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  const rowGroupBytes = opts.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
  if (!(rowGroupBytes > 0)) {
    throw new ArchiverError('CONFIG_INVALID', `rowGroupBytes must be positive, got ${rowGroupBytes}`);
  }
  const compression = opts.compression ?? DEFAULT_PARQUET_COMPRESSION;
  const compressors = parquetCompressors(compression);
  const columnOptions = historyColumnOptions(HISTORY_PARQUET_SCHEMA);

  const handle = await wrapWrite(localPath, () => open(localPath, 'w'));
  let closed = false;
  try {
    const writer = new FileSinkWriter(handle);
    const parquet = new ParquetWriter({
      writer,
      schema: HISTORY_PARQUET_SCHEMA,
      codec: compression,
      compressors,
      statistics: true,
      createdBy: 'tunnel-archiver (hyparquet-writer 0.17.0)',
    });
    let count = 0;
    let batch: ArchiveRow[] = [];
    let batchBytes = 0;
    const full = (row: ArchiveRow): boolean => {
      batchBytes += rowBytes(row);
      return batch.push(row) >= rowGroupSize || batchBytes >= rowGroupBytes;
    };
    const flushBatch = async (): Promise<void> => {
      const group = batch;
      batch = [];
      batchBytes = 0;
      await wrapWrite(localPath, () => writeRowGroup(parquet, group, columnOptions));
      count += group.length;
    };
    // A sync source is read with a plain for-of: `for await` would cost a promise per row.
    if (isAsyncIterable(rows)) {
      for await (const row of rows) if (full(row)) await flushBatch();
    } else {
      for (const row of rows) if (full(row)) await flushBatch();
    }
    if (batch.length > 0) await flushBatch();
    await wrapWrite(localPath, async () => {
      await parquet.finish();
      await handle.close();
    });
    closed = true;
    return { rows: count, bytes: writer.offset };
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(localPath, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** A row's payload: UTF-16 length of its strings (a fair proxy for their bytes) plus 8 per other value. */
function rowBytes(row: ArchiveRow): number {
  let n = 0;
  for (const key in row) {
    const value = row[key as keyof ArchiveRow];
    if (typeof value === 'string') n += value.length;
    else if (Array.isArray(value)) for (const item of value) n += String(item).length + 4;
    else n += 8;
  }
  return n;
}

function isAsyncIterable<T>(value: Iterable<T> | AsyncIterable<T>): value is AsyncIterable<T> {
  return typeof (value as Partial<AsyncIterable<T>>)[Symbol.asyncIterator] === 'function';
}

/** Writes `batch` as exactly one row group (the library would split it again at its own default size). */
async function writeRowGroup(
  parquet: ParquetWriter,
  batch: readonly ArchiveRow[],
  columnOptions: ReadonlyMap<string, HistoryColumnOptions>,
): Promise<void> {
  const columnData = HISTORY_COLUMN_NAMES.map((name) => {
    const data = batch.map((row) => row[name]);
    const options = columnOptions.get(name) ?? { statistics: true, offsetIndex: false };
    // A dictionary of nothing (a column that is all null in this group) is left to the library.
    if (options.encoding === 'RLE_DICTIONARY' && !data.some((v) => v !== null)) {
      const { encoding: _dropped, ...rest } = options;
      return { name, data, ...rest };
    }
    return { name, data, ...options };
  });
  await parquet.write({ columnData, rowGroupSize: batch.length });
}

async function wrapWrite<T>(localPath: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (ArchiverError.is(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ArchiverError('STORE_FAILED', `writing Parquet file ${localPath} failed: ${message}`, {
      cause: error,
    });
  }
}

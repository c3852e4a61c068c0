import type { DraftRow } from '../records/archiveRow.ts';
import {
  HistoryParquetFile,
  type HistoryParquetFileOptions,
  type HistoryParquetFileResult,
} from './historyParquetFile.ts';

export type WriteHistoryParquetOptions = HistoryParquetFileOptions;
export type WriteHistoryParquetResult = HistoryParquetFileResult;
export { DEFAULT_ROW_GROUP_BYTES, DEFAULT_ROW_GROUP_SIZE } from './historyParquetFile.ts';

/**
 * Streams archive rows into one Parquet file at `localPath` (see `HistoryParquetFile`): memory is
 * bounded by one row group, not by the input. On failure the partial file is removed and the error
 * rethrown (write failures as `STORE_FAILED`); errors thrown by the `rows` source pass through unchanged.
 */
export async function writeHistoryParquet(
  rows: Iterable<DraftRow> | AsyncIterable<DraftRow>,
  localPath: string,
  opts: WriteHistoryParquetOptions = {},
): Promise<WriteHistoryParquetResult> {
  const file = await HistoryParquetFile.create(localPath, opts);
  try {
    // A sync source is read with a plain for-of: `for await` would cost a promise per row.
    if (isAsyncIterable(rows)) {
      for await (const row of rows) await file.add(row);
    } else {
      for (const row of rows) {
        const flushed = file.add(row);
        if (flushed) await flushed;
      }
    }
    return await file.finish();
  } catch (error) {
    await file.abort();
    throw error;
  }
}

function isAsyncIterable<T>(value: Iterable<T> | AsyncIterable<T>): value is AsyncIterable<T> {
  return typeof (value as Partial<AsyncIterable<T>>)[Symbol.asyncIterator] === 'function';
}

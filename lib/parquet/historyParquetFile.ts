import { type FileHandle, open, rm } from 'node:fs/promises';
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

export interface HistoryParquetFileOptions {
  /** Rows per row group, and the most rows held in memory at once (default 100 000). */
  rowGroupSize?: number | undefined;
  /** Default: ZSTD where `node:zlib` has zstd, else GZIP; see `defaultParquetCompression`. */
  compression?: ParquetCompression | undefined;
  /**
   * A row group also ends once its rows' string and value bytes reach this (default 2 MiB), whatever
   * `rowGroupSize` says: encoding a group costs several times its payload in memory, so this bound, not
   * the row count, is what keeps a heavy day's peak RSS flat.
   */
  rowGroupBytes?: number | undefined;
}

export interface HistoryParquetFileResult {
  rows: number;
  /** Size of the finished file in bytes. */
  bytes: number;
}

export const DEFAULT_ROW_GROUP_SIZE = 100_000;
export const DEFAULT_ROW_GROUP_BYTES = 2 * 1024 * 1024;

const COLUMN_OPTIONS = historyColumnOptions(HISTORY_PARQUET_SCHEMA);

/**
 * One archive Parquet file written row by row, as rows arrive: a row group is encoded and appended to
 * the file as soon as it is full, so a day walk encodes while its next pages are in flight and memory
 * holds one row group, never the day. `add` returns a promise only when it ended a row group (await it:
 * that is the back-pressure); row groups are encoded and written strictly one after another even when
 * several callers add concurrently. Encodings and statistics per column follow `historyColumnOptions`;
 * the codec is recorded in every column chunk's metadata. Write failures are `STORE_FAILED`; `abort`
 * (or any failure) removes the partial file.
 */
export class HistoryParquetFile {
  readonly path: string;
  readonly #rowGroupSize: number;
  readonly #rowGroupBytes: number;
  readonly #compression: ParquetCompression;
  #handle: FileHandle | undefined;
  #sink: FileSinkWriter | undefined;
  #parquet: ParquetWriter | undefined;
  #batch: ArchiveRow[] = [];
  #batchBytes = 0;
  #rows = 0;
  #chain: Promise<void> = Promise.resolve();
  #failed: unknown;
  #state: 'open' | 'finished' | 'aborted' = 'open';

  private constructor(path: string, opts: HistoryParquetFileOptions) {
    this.path = path;
    this.#rowGroupSize = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
    this.#rowGroupBytes = opts.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
    this.#compression = opts.compression ?? DEFAULT_PARQUET_COMPRESSION;
  }

  /** Creates (truncates) `path`, mode 0600, and writes the Parquet header. */
  static async create(path: string, opts: HistoryParquetFileOptions = {}): Promise<HistoryParquetFile> {
    const rowGroupSize = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
    if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1) {
      throw new ArchiverError(
        'CONFIG_INVALID',
        `rowGroupSize must be a positive integer, got ${rowGroupSize}`,
      );
    }
    const rowGroupBytes = opts.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
    if (!(rowGroupBytes > 0)) {
      throw new ArchiverError('CONFIG_INVALID', `rowGroupBytes must be positive, got ${rowGroupBytes}`);
    }
    const file = new HistoryParquetFile(path, opts);
    const compressors = parquetCompressors(file.#compression);
    file.#handle = await wrapWrite(path, () => open(path, 'w', 0o600));
    file.#sink = new FileSinkWriter(file.#handle);
    file.#parquet = new ParquetWriter({
      writer: file.#sink,
      schema: HISTORY_PARQUET_SCHEMA,
      codec: file.#compression,
      compressors,
      statistics: true,
      createdBy: 'tunnel-archiver (hyparquet-writer 0.17.0)',
    });
    return file;
  }

  /** Rows added so far (buffered or written). */
  get rows(): number {
    return this.#rows + this.#batch.length;
  }

  /** Buffers one row; returns a promise (to await) only when this row completed a row group. */
  add(row: ArchiveRow): undefined | Promise<void> {
    if (this.#state !== 'open') throw new ArchiverError('INTERNAL', `${this.path} is ${this.#state}`);
    this.#batchBytes += rowBytes(row);
    if (this.#batch.push(row) >= this.#rowGroupSize || this.#batchBytes >= this.#rowGroupBytes) {
      return this.#flush();
    }
    return undefined;
  }

  /** Writes the last row group and the footer, closes the file. */
  async finish(): Promise<HistoryParquetFileResult> {
    if (this.#state !== 'open') throw new ArchiverError('INTERNAL', `${this.path} is ${this.#state}`);
    try {
      if (this.#batch.length > 0) await this.#flush();
      else await this.#chain;
      if (this.#failed !== undefined) throw this.#failed;
      const parquet = this.#parquet as ParquetWriter;
      const handle = this.#handle as FileHandle;
      await wrapWrite(this.path, async () => {
        await parquet.finish();
        await handle.close();
      });
      this.#state = 'finished';
      return { rows: this.#rows, bytes: (this.#sink as FileSinkWriter).offset };
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Closes and removes the partial file; safe to call more than once, and after `finish`. */
  async abort(): Promise<void> {
    if (this.#state === 'aborted') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'aborted';
    this.#batch = [];
    await this.#chain.catch(() => undefined);
    if (wasOpen) await this.#handle?.close().catch(() => undefined);
    await rm(this.path, { force: true }).catch(() => undefined);
  }

  #flush(): Promise<void> {
    const group = this.#batch;
    this.#batch = [];
    this.#batchBytes = 0;
    this.#chain = this.#chain.then(async () => {
      if (this.#failed !== undefined) throw this.#failed;
      try {
        await wrapWrite(this.path, () =>
          writeRowGroup(this.#parquet as ParquetWriter, group, COLUMN_OPTIONS),
        );
        this.#rows += group.length;
      } catch (error) {
        this.#failed = error;
        throw error;
      }
    });
    return this.#chain;
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

import { open } from 'node:fs/promises';
import { ArchiverError } from '../../foundation/index.ts';
import type { DraftRow } from '../records/archiveRow.ts';
import {
  DEFAULT_PARQUET_COMPRESSION,
  type ParquetCompression,
  parquetCompressors,
} from './parquetCompression.ts';
import { type DraftWriterSettings, ParquetDraftWriter } from './parquetDraftWriter.ts';
import { type ParquetWorkerClient, parquetWorker, parquetWorkerAvailable } from './parquetWorkerClient.ts';
import { PartialFile } from './partialFile.ts';
import { CHUNK_ROWS, type RowChunk, RowChunkBuilder } from './rowChunk.ts';
import { wrapParquetWrite } from './wrapParquetWrite.ts';

/** Where row groups are encoded; the one list of names (config and CLI import it). */
export const PARQUET_ENCODERS = ['inline', 'worker'] as const;
export type ParquetEncoder = (typeof PARQUET_ENCODERS)[number];

export interface HistoryParquetFileOptions {
  /** Rows per row group (default 100 000). */
  rowGroupSize?: number | undefined;
  /** Default: ZSTD where `node:zlib` has zstd, else GZIP; see `defaultParquetCompression`. */
  compression?: ParquetCompression | undefined;
  /**
   * A row group also ends once its rows' string and value bytes reach this (default 2 MiB), whatever
   * `rowGroupSize` says: encoding a group costs several times its payload in memory, so this bound, not
   * the row count, is what keeps a heavy day's peak RSS flat.
   */
  rowGroupBytes?: number | undefined;
  /**
   * Where row groups are encoded: `inline` (this thread, the default), or `worker` (the process's
   * encoding worker thread where there is one, see `parquetWorker`; else inline). Both write the same bytes.
   */
  encoder?: ParquetEncoder | undefined;
}

export interface HistoryParquetFileResult {
  rows: number;
  /** Size of the finished file in bytes. */
  bytes: number;
}

export const DEFAULT_ROW_GROUP_SIZE = 100_000;
export const DEFAULT_ROW_GROUP_BYTES = 2 * 1024 * 1024;

/** Chunks sent to the worker and not yet taken by it before `add` asks the caller to wait. */
const MAX_CHUNKS_IN_FLIGHT = 4;

type Backend =
  | { kind: 'pending' }
  | { kind: 'inline'; writer: ParquetDraftWriter }
  | { kind: 'worker'; client: ParquetWorkerClient; file: number };

/**
 * One archive Parquet file written row by row, as rows arrive, so a day walk encodes while its next
 * pages are in flight and memory holds one row group, never the day. Rows are collected in columns
 * ({@link RowChunk}) and handed on a chunk at a time; the draft writer cuts them into row groups
 * (`rowGroupSize` rows or `rowGroupBytes` of payload), encodes and appends them. With the `worker`
 * encoder a file that grows past {@link CHUNK_ROWS} rows is encoded by the worker thread (smaller files
 * are encoded here at `finish`, and start no worker). `add` returns a promise only when the caller
 * should wait (await it: that is the back-pressure): inline, when a row group is being written; with
 * the worker, when {@link MAX_CHUNKS_IN_FLIGHT} chunks are not yet written. Encodings and statistics per
 * column follow `historyColumnOptions`; the codec is recorded in every column chunk's metadata. Write
 * failures are `STORE_FAILED`; `abort` (or any failure) removes the partial file.
 */
export class HistoryParquetFile extends PartialFile<HistoryParquetFileResult> {
  readonly #settings: DraftWriterSettings;
  #backend: Backend;
  #builder = new RowChunkBuilder();
  #rows = 0;
  /** Worker calls not answered yet, oldest first (the worker answers a file's calls in order). */
  #inFlight: Promise<unknown>[] = [];
  #failed: unknown;

  private constructor(path: string, settings: DraftWriterSettings, backend: Backend) {
    super(path);
    this.#settings = settings;
    this.#backend = backend;
  }

  /** Creates (truncates) `path`, mode 0600. */
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
    const compression = opts.compression ?? DEFAULT_PARQUET_COMPRESSION;
    const settings = { rowGroupSize, rowGroupBytes, compression };
    // Without a worker on this runtime, `worker` means inline, decided here once: a file never switches
    // encoders while rows are still arriving (two concurrent adds could otherwise open it twice).
    if ((opts.encoder ?? 'inline') === 'inline' || !parquetWorkerAvailable()) {
      const writer = await ParquetDraftWriter.create(path, settings);
      return new HistoryParquetFile(path, settings, { kind: 'inline', writer });
    }
    parquetCompressors(compression);
    // The file exists (0600) from here on, whichever thread writes it later.
    await wrapParquetWrite(path, async () => (await open(path, 'w', 0o600)).close());
    return new HistoryParquetFile(path, settings, { kind: 'pending' });
  }

  /** Rows added so far (buffered or written). */
  get rows(): number {
    return this.#rows;
  }

  /** Takes one row; returns a promise (to await) only when the caller should wait for the encoder. */
  add(row: DraftRow): undefined | Promise<void> {
    this.assertOpen();
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    this.#builder.push(row);
    this.#rows++;
    if (this.#builder.rows < CHUNK_ROWS) return undefined;
    return this.#hand(this.#builder.take());
  }

  /** Writes the last row group and the footer, closes the file. */
  protected async finishFile(): Promise<HistoryParquetFileResult> {
    const rest = this.#builder.take();
    if (this.#backend.kind === 'pending') {
      // Never a full chunk: too small to be worth a worker.
      this.#backend = {
        kind: 'inline',
        writer: await ParquetDraftWriter.create(this.path, this.#settings),
      };
    }
    if (rest.rows > 0) await this.#hand(rest);
    await Promise.all(this.#inFlight);
    if (this.#failed !== undefined) throw this.#failed;
    const backend = this.#backend as Exclude<Backend, { kind: 'pending' }>;
    return backend.kind === 'inline'
      ? await backend.writer.finish()
      : ((await backend.client.call({ op: 'finish', file: backend.file })) as HistoryParquetFileResult);
  }

  protected async abortFile(wasOpen: boolean): Promise<void> {
    this.#builder = new RowChunkBuilder();
    await Promise.allSettled(this.#inFlight);
    const backend = this.#backend;
    if (wasOpen && backend.kind === 'inline') await backend.writer.abort();
    if (wasOpen && backend.kind === 'worker') {
      await backend.client.call({ op: 'abort', file: backend.file }).catch(() => undefined);
    }
  }

  /** Hands a chunk to the encoder (choosing it on the first full chunk); see `add` for the promise. */
  #hand(chunk: RowChunk): undefined | Promise<void> {
    if (this.#backend.kind === 'pending') {
      // A worker was there when the file was created; one that died since is replaced here.
      const client = parquetWorker();
      if (!client)
        throw new ArchiverError('STORE_FAILED', `${this.path}: the Parquet encoding worker cannot start`);
      const file = client.newFile();
      this.#backend = { kind: 'worker', client, file };
      this.#track(client.call({ op: 'create', file, path: this.path, settings: this.#settings }));
    }
    const backend = this.#backend;
    if (backend.kind === 'inline') {
      const flushing = backend.writer.append(chunk);
      if (!flushing) return undefined;
      return flushing.catch((error: unknown) => {
        this.#failed ??= error;
        throw error;
      });
    }
    this.#track(backend.client.call({ op: 'append', file: backend.file, chunk }));
    if (this.#inFlight.length < MAX_CHUNKS_IN_FLIGHT) return undefined;
    // The oldest call first: the worker answers in order, so this bounds what is not yet written.
    return (this.#inFlight[0] as Promise<unknown>).then(() => {
      if (this.#failed !== undefined) throw this.#failed;
    });
  }

  /** Keeps a worker call among the in-flight ones until it settles; its failure fails the file. */
  #track(work: Promise<unknown>): void {
    const tracked: Promise<unknown> = work.then(
      () => {
        this.#inFlight = this.#inFlight.filter((p) => p !== tracked);
      },
      (error: unknown) => {
        this.#inFlight = this.#inFlight.filter((p) => p !== tracked);
        this.#failed ??= error;
      },
    );
    this.#inFlight.push(tracked);
  }
}

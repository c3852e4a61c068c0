import { type FileHandle, open } from 'node:fs/promises';
import { ParquetWriter } from 'hyparquet-writer';
import { derivedSessionId, SESSION_ID_COLUMN } from './derivedSessionId.ts';
import { FileSinkWriter } from './fileSinkWriter.ts';
import { historyColumnData } from './historyColumnData.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from './historySchema.ts';
import { concatPacked, isPackedColumn, type PackedColumn, unpackColumn } from './packedColumn.ts';
import { packHistoryColumns } from './packHistoryColumns.ts';
import { type ParquetCompression, parquetCompressors } from './parquetCompression.ts';
import { PartialFile } from './partialFile.ts';
import type { RowChunk } from './rowChunk.ts';
import { wrapParquetWrite } from './wrapParquetWrite.ts';
import { writeHistoryRowGroup, writeHistoryRowGroupYielding } from './writeHistoryRowGroup.ts';

/** What a draft writer needs to know; plain data, so the encoding worker receives the same. */
export interface DraftWriterSettings {
  rowGroupSize: number;
  rowGroupBytes: number;
  compression: ParquetCompression;
}

/** How a draft writer shares its thread. */
export interface DraftWriterOptions {
  /**
   * Whether a row group gives the event loop a turn between two columns (`writeHistoryRowGroupYielding`):
   * yes on the walk's thread (the default), whose answers and next requests wait meanwhile. The encoding
   * worker says no: nothing else runs there, and each turn let the chunks queued behind the group be read
   * back into strings that then outlived two young collections, so the worker marked its old generation
   * more often (bench/PROFILE.md).
   */
  yieldBetweenColumns?: boolean;
}

/**
 * The encoding half of a history Parquet file: takes {@link RowChunk}s, cuts them into row groups (at
 * `rowGroupSize` rows or `rowGroupBytes` of payload, whichever comes first), encodes each group as it
 * fills and appends it to the file, strictly one after another. It runs on the main thread or in the
 * encoding worker (`parquetWorker.ts`); both write the same bytes. A row's `session_id` left null (a
 * `DraftRow`'s) is derived here, on the thread that encodes. Failures are `STORE_FAILED`, and
 * remove the partial file.
 */
export class ParquetDraftWriter extends PartialFile<{ rows: number; bytes: number }> {
  readonly #settings: DraftWriterSettings;
  readonly #yielding: boolean;
  readonly #handle: FileHandle;
  readonly #sink: FileSinkWriter;
  readonly #parquet: ParquetWriter;
  /**
   * The open row group's rows: the ranges of the chunks taken, packed as they are taken (so their strings
   * die young, not after a row group's worth of collections), joined a column at a time when it is written.
   */
  #parts: GroupPart[] = [];
  #groupRows = 0;
  #groupBytes = 0;
  #rows = 0;
  #chain: Promise<void> = Promise.resolve();
  #failed: unknown;

  private constructor(
    path: string,
    settings: DraftWriterSettings,
    handle: FileHandle,
    options: DraftWriterOptions,
  ) {
    super(path);
    this.#settings = settings;
    this.#yielding = options.yieldBetweenColumns ?? true;
    this.#handle = handle;
    this.#sink = new FileSinkWriter(handle);
    this.#parquet = new ParquetWriter({
      writer: this.#sink,
      schema: HISTORY_PARQUET_SCHEMA,
      codec: settings.compression,
      compressors: parquetCompressors(settings.compression),
      statistics: true,
      createdBy: 'tunnel-archiver (hyparquet-writer 0.17.0)',
    });
  }

  /** Creates (truncates) `path`, mode 0600, and writes the Parquet header. */
  static async create(
    path: string,
    settings: DraftWriterSettings,
    options: DraftWriterOptions = {},
  ): Promise<ParquetDraftWriter> {
    // Fails with CONFIG_INVALID before the file exists when the codec is unavailable here.
    parquetCompressors(settings.compression);
    const handle = await wrapParquetWrite(path, () => open(path, 'w', 0o600));
    return new ParquetDraftWriter(path, settings, handle, options);
  }

  /** Rows taken so far (written or in the open group). */
  get rows(): number {
    return this.#rows + this.#groupRows;
  }

  /** Takes a chunk; returns a promise (to await) only when the chunk ended at least one row group. */
  append(chunk: RowChunk): undefined | Promise<void> {
    this.assertOpen();
    let flushed: Promise<void> | undefined;
    const { rowGroupSize, rowGroupBytes } = this.#settings;
    // Where each row group ends is decided row by row; the rows then move a column at a time.
    let from = 0;
    for (let r = 0; r < chunk.rows; r++) {
      this.#groupBytes += chunk.bytes[r] ?? 0;
      if (++this.#groupRows >= rowGroupSize || this.#groupBytes >= rowGroupBytes) {
        this.#take(chunk.columns, from, r + 1);
        from = r + 1;
        flushed = this.#flush();
      }
    }
    this.#take(chunk.columns, from, chunk.rows);
    return flushed;
  }

  /**
   * Adds rows `from` to `to` of a chunk's columns to the open row group. The chunk is the writer's from
   * `append` on (the builder and the worker's message hand it over), so a row whose `session_id` was left
   * to the encoder gets it here, in the chunk's own column, from its own columns; the range is then
   * packed, and the chunk dropped.
   */
  #take(columns: unknown[][], from: number, to: number): void {
    if (to <= from) return;
    const ids = columns[SESSION_ID_COLUMN] as (string | null)[];
    for (let r = from; r < to; r++) if (ids[r] === null) ids[r] = derivedSessionId(columns, r);
    this.#parts.push(packHistoryColumns(columns, from, to));
  }

  /** Writes the last row group and the footer, closes the file. */
  protected async finishFile(): Promise<{ rows: number; bytes: number }> {
    if (this.#groupRows > 0) await this.#flush();
    else await this.#chain;
    if (this.#failed !== undefined) throw this.#failed;
    await wrapParquetWrite(this.path, async () => {
      await this.#parquet.finish();
      await this.#handle.close();
    });
    return { rows: this.#rows, bytes: this.#sink.offset };
  }

  protected async abortFile(wasOpen: boolean): Promise<void> {
    this.#parts = [];
    await this.#chain.catch(() => undefined);
    if (wasOpen) await this.#handle.close().catch(() => undefined);
  }

  #flush(): Promise<void> {
    const group = joinColumns(this.#parts);
    const rows = this.#groupRows;
    this.#parts = [];
    this.#groupRows = 0;
    this.#groupBytes = 0;
    this.#chain = this.#chain.then(async () => {
      if (this.#failed !== undefined) throw this.#failed;
      try {
        await wrapParquetWrite(this.path, () => writeRowGroup(this.#parquet, group, rows, this.#yielding));
        this.#rows += rows;
      } catch (error) {
        this.#failed = error;
        throw error;
      }
    });
    return this.#chain;
  }
}

/** Rows of the open row group taken from one chunk: its columns, packed where they pack (`packHistoryColumns`). */
type GroupPart = (unknown[] | PackedColumn)[];

/**
 * The row group's columns from its parts, each made only when the writer reaches it (`historyColumnData`
 * reads them so), so one column's values are whole at a time: a column packed in every part is joined
 * packed, as the writer of its encoding takes it; any other is one array of the group's length, made at
 * once (`concat`) rather than grown a row at a time, a packed part unpacked into it.
 */
function joinColumns(parts: readonly GroupPart[]): (() => unknown[] | PackedColumn)[] {
  return HISTORY_COLUMN_NAMES.map((_, c) => () => {
    const held = parts.map((columns) => columns[c] as unknown[] | PackedColumn);
    if (held.every(isPackedColumn)) return concatPacked(held);
    const pieces = held.map((h) => (isPackedColumn(h) ? unpackColumn(h) : h));
    if (pieces.length === 1) return pieces[0] as unknown[];
    // At most `CONCAT_BATCH` arrays a call: a group of many small chunks stays within the argument limit.
    let joined: unknown[] = [];
    for (let i = 0; i < pieces.length; i += CONCAT_BATCH)
      joined = joined.concat(...pieces.slice(i, i + CONCAT_BATCH));
    return joined;
  });
}

const CONCAT_BATCH = 1024;

/**
 * Writes `group` as exactly one row group (the library would split it again at its own default size),
 * giving the event loop a turn between two columns when `yielding`.
 */
async function writeRowGroup(
  parquet: ParquetWriter,
  group: (() => unknown[] | PackedColumn)[],
  rows: number,
  yielding: boolean,
): Promise<void> {
  const columns = historyColumnData(group);
  await (yielding
    ? writeHistoryRowGroupYielding(parquet, columns, rows)
    : writeHistoryRowGroup(parquet, columns, rows));
}

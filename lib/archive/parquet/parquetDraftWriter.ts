import { type FileHandle, open } from 'node:fs/promises';
import { ParquetWriter } from 'hyparquet-writer';
import { derivedSessionId, SESSION_ID_COLUMN } from './derivedSessionId.ts';
import { FileSinkWriter } from './fileSinkWriter.ts';
import { historyColumnData } from './historyColumnData.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from './historySchema.ts';
import { type ParquetCompression, parquetCompressors } from './parquetCompression.ts';
import { PartialFile } from './partialFile.ts';
import type { RowChunk } from './rowChunk.ts';
import { wrapParquetWrite } from './wrapParquetWrite.ts';
import { writeHistoryRowGroupYielding } from './writeHistoryRowGroup.ts';

/** What a draft writer needs to know; plain data, so the encoding worker receives the same. */
export interface DraftWriterSettings {
  rowGroupSize: number;
  rowGroupBytes: number;
  compression: ParquetCompression;
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
  readonly #handle: FileHandle;
  readonly #sink: FileSinkWriter;
  readonly #parquet: ParquetWriter;
  #group: unknown[][] = HISTORY_COLUMN_NAMES.map(() => []);
  #groupRows = 0;
  #groupBytes = 0;
  #rows = 0;
  #chain: Promise<void> = Promise.resolve();
  #failed: unknown;

  private constructor(path: string, settings: DraftWriterSettings, handle: FileHandle) {
    super(path);
    this.#settings = settings;
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
  static async create(path: string, settings: DraftWriterSettings): Promise<ParquetDraftWriter> {
    // Fails with CONFIG_INVALID before the file exists when the codec is unavailable here.
    parquetCompressors(settings.compression);
    const handle = await wrapParquetWrite(path, () => open(path, 'w', 0o600));
    return new ParquetDraftWriter(path, settings, handle);
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

  /** Moves rows `from` to `to` of a chunk's columns into the open row group. */
  #take(columns: readonly unknown[][], from: number, to: number): void {
    if (to <= from) return;
    const group = this.#group;
    for (let c = 0; c < columns.length; c++) {
      const source = columns[c] as unknown[];
      const target = group[c] as unknown[];
      for (let r = from; r < to; r++) target.push(source[r]);
    }
    // A row whose `session_id` was left to the encoder gets it here, from its own columns.
    const ids = group[SESSION_ID_COLUMN] as (string | null)[];
    const offset = ids.length - to;
    for (let r = from; r < to; r++)
      if (ids[offset + r] === null) ids[offset + r] = derivedSessionId(columns, r);
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
    this.#group = [];
    await this.#chain.catch(() => undefined);
    if (wasOpen) await this.#handle.close().catch(() => undefined);
  }

  #flush(): Promise<void> {
    const group = this.#group;
    const rows = this.#groupRows;
    this.#group = HISTORY_COLUMN_NAMES.map(() => []);
    this.#groupRows = 0;
    this.#groupBytes = 0;
    this.#chain = this.#chain.then(async () => {
      if (this.#failed !== undefined) throw this.#failed;
      try {
        await wrapParquetWrite(this.path, () => writeRowGroup(this.#parquet, group, rows));
        this.#rows += rows;
      } catch (error) {
        this.#failed = error;
        throw error;
      }
    });
    return this.#chain;
  }
}

/** Writes `group` as exactly one row group (the library would split it again at its own default size). */
async function writeRowGroup(parquet: ParquetWriter, group: unknown[][], rows: number): Promise<void> {
  await writeHistoryRowGroupYielding(parquet, historyColumnData(group), rows);
}

import type { ArchiveRow } from '../records/archiveRow.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_TIMESTAMP_COLUMNS } from './historySchema.ts';

/**
 * Archive rows in columns, as a Parquet writer takes them and as they cross to the encoding worker
 * (structured clone copies flat arrays of primitives cheaply; row objects with `Date`s it does not).
 * `columns[i]` holds the values of `HISTORY_COLUMN_NAMES[i]`; timestamps are epoch milliseconds.
 */
export interface RowChunk {
  rows: number;
  columns: unknown[][];
  /**
   * Each row's payload (UTF-16 length of its strings, 8 per other value): where a row group ends is
   * decided row by row from these.
   */
  bytes: number[];
}

const NAMES = HISTORY_COLUMN_NAMES;
const IS_TIME = NAMES.map((n) => HISTORY_TIMESTAMP_COLUMNS.has(n));

/** Collects rows into a {@link RowChunk}; `take` hands the chunk over and starts an empty one. */
export class RowChunkBuilder {
  #chunk: RowChunk = emptyChunk();

  get rows(): number {
    return this.#chunk.rows;
  }

  /** Appends one row; returns its payload in bytes. */
  push(row: ArchiveRow): number {
    const chunk = this.#chunk;
    let payload = 0;
    for (let i = 0; i < NAMES.length; i++) {
      const value = row[NAMES[i] as keyof ArchiveRow];
      if (IS_TIME[i]) {
        (chunk.columns[i] as unknown[]).push(value === null ? null : (value as Date).getTime());
        payload += 8;
        continue;
      }
      (chunk.columns[i] as unknown[]).push(value);
      if (typeof value === 'string') payload += value.length;
      else if (Array.isArray(value)) for (const item of value) payload += String(item).length + 4;
      else payload += 8;
    }
    chunk.bytes.push(payload);
    chunk.rows++;
    return payload;
  }

  take(): RowChunk {
    const chunk = this.#chunk;
    this.#chunk = emptyChunk();
    return chunk;
  }
}

function emptyChunk(): RowChunk {
  return { rows: 0, columns: NAMES.map(() => []), bytes: [] };
}

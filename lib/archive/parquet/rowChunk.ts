import type { ArchiveRow, DraftRow } from '../records/archiveRow.ts';
import { ID_HEX_LENGTH } from '../records/recordId.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_TIMESTAMP_COLUMNS } from './historySchema.ts';

/**
 * Archive rows in columns, as a Parquet writer takes them and as they cross to the encoding worker
 * (structured clone copies flat arrays of primitives cheaply; row objects with `Date`s it does not).
 * `columns[i]` holds the values of `HISTORY_COLUMN_NAMES[i]`; timestamps are epoch milliseconds. A
 * `session_id` may be null: the encoder derives it from the row's columns (see `DraftRow`).
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

/** The columns `push` writes, in its order: the schema's, or this module refuses to load. */
const PUSH_ORDER: readonly (keyof ArchiveRow)[] = [
  'record_id',
  'session_id',
  'start_time',
  'end_time',
  'user_email',
  'token_value',
  'virtual_token_value',
  'token_hmac',
  'virtual_token_hmac',
  'domains',
  'mode',
  'mode_udp',
  'client_ip',
  'client_address',
  'client_port',
  'port',
  'extra_json',
  'archived_at',
  'start_time_text',
  'end_time_text',
];
const TIMESTAMPS: readonly (keyof ArchiveRow)[] = ['start_time', 'end_time', 'archived_at'];
if (
  PUSH_ORDER.join() !== NAMES.join() ||
  TIMESTAMPS.join() !== NAMES.filter((n) => HISTORY_TIMESTAMP_COLUMNS.has(n)).join()
)
  throw new Error("RowChunkBuilder.push does not follow the history schema's columns");

/** A draft's timestamp as the chunk holds it (see `DraftRow`). */
function epochMs(value: Date | number): number {
  return typeof value === 'number' ? value : value.getTime();
}

/** A string column's payload: its UTF-16 length, or 8 for a null. */
function textBytes(value: string | null): number {
  return typeof value === 'string' ? value.length : 8;
}

/** A list column's payload: each item's length and 4. */
function listBytes(items: readonly string[]): number {
  let bytes = 0;
  for (const item of items) bytes += String(item).length + 4;
  return bytes;
}

/**
 * Rows collected before they are handed on as one chunk: the capacity a {@link RowChunkBuilder} allocates.
 * Chunks go to the encoding worker as they fill, so the rows of a chunk die young on the walk's thread.
 */
export const CHUNK_ROWS = 1024;

/**
 * Collects rows into a {@link RowChunk}; `take` hands the chunk over and starts an empty one. Each chunk's
 * columns are allocated at `capacity` rows and filled by index, not grown by `push` (which allocates about
 * three times the final array while it grows, and copies it each time): a walk fills every chunk but its
 * file's last, whose columns are cut to its rows. A row past `capacity` is still taken.
 */
export class RowChunkBuilder {
  readonly #capacity: number;
  #chunk: RowChunk;

  constructor(capacity = CHUNK_ROWS) {
    this.#capacity = capacity;
    this.#chunk = emptyChunk(capacity);
  }

  get rows(): number {
    return this.#chunk.rows;
  }

  /** Appends one row; returns its payload in bytes. */
  push(row: DraftRow): number {
    const chunk = this.#chunk;
    const c = chunk.columns as [unknown[], ...unknown[][]];
    const r = chunk.rows;
    // Field by field in `PUSH_ORDER` (checked against the schema's column order when this module loads):
    // a named read of each field, not one keyed read a column, on every row of every walk.
    let payload = 40; // the three timestamps and the two ports: 8 each
    c[0][r] = row.record_id;
    payload += textBytes(row.record_id);
    (c[1] as unknown[])[r] = row.session_id;
    // The id it will be once derived: row groups end where they would with the id written out.
    payload += row.session_id === null ? ID_HEX_LENGTH : row.session_id.length;
    (c[2] as unknown[])[r] = epochMs(row.start_time);
    (c[3] as unknown[])[r] = row.end_time === null ? null : epochMs(row.end_time);
    (c[4] as unknown[])[r] = row.user_email;
    payload += textBytes(row.user_email);
    (c[5] as unknown[])[r] = row.token_value;
    payload += textBytes(row.token_value);
    (c[6] as unknown[])[r] = row.virtual_token_value;
    payload += textBytes(row.virtual_token_value);
    (c[7] as unknown[])[r] = row.token_hmac;
    payload += textBytes(row.token_hmac);
    (c[8] as unknown[])[r] = row.virtual_token_hmac;
    payload += textBytes(row.virtual_token_hmac);
    (c[9] as unknown[])[r] = row.domains;
    payload += listBytes(row.domains);
    (c[10] as unknown[])[r] = row.mode;
    payload += textBytes(row.mode);
    (c[11] as unknown[])[r] = row.mode_udp;
    payload += textBytes(row.mode_udp);
    (c[12] as unknown[])[r] = row.client_ip;
    payload += textBytes(row.client_ip);
    (c[13] as unknown[])[r] = row.client_address;
    payload += textBytes(row.client_address);
    (c[14] as unknown[])[r] = row.client_port;
    (c[15] as unknown[])[r] = row.port;
    (c[16] as unknown[])[r] = row.extra_json;
    payload += textBytes(row.extra_json);
    (c[17] as unknown[])[r] = epochMs(row.archived_at);
    (c[18] as unknown[])[r] = row.start_time_text;
    payload += textBytes(row.start_time_text);
    (c[19] as unknown[])[r] = row.end_time_text;
    payload += textBytes(row.end_time_text);
    chunk.bytes[r] = payload;
    chunk.rows = r + 1;
    return payload;
  }

  take(): RowChunk {
    const chunk = this.#chunk;
    this.#chunk = emptyChunk(this.#capacity);
    if (chunk.bytes.length > chunk.rows) {
      for (const column of chunk.columns) column.length = chunk.rows;
      chunk.bytes.length = chunk.rows;
    }
    return chunk;
  }
}

/**
 * Columns of `capacity` rows, copied from a template of that length: a copy keeps the template's element
 * kind, so the columns stay packed (structured clone copies a holey array element by element, as a map)
 * and the never-null timestamps stay unboxed doubles.
 */
function emptyChunk(capacity: number): RowChunk {
  const t = templates(capacity);
  // Pushed, not mapped: `map` may build its result holey, and the list of columns is cloned too.
  const columns: unknown[][] = [];
  for (const name of NAMES) columns.push((NEVER_NULL_NUMBERS.has(name) ? t.doubles : t.nulls).slice());
  return { rows: 0, columns, bytes: t.smis.slice() };
}

/** The number columns no row leaves null: `start_time` and `archived_at`. */
const NEVER_NULL_NUMBERS: ReadonlySet<string> = new Set(['start_time', 'archived_at']);

interface Templates {
  capacity: number;
  nulls: null[];
  /** Zeros held as doubles (a 0.5 was there first): epoch ms stored into a copy need no transition. */
  doubles: number[];
  /** Zeros held as small integers, for the payloads. */
  smis: number[];
}

let template: Templates | undefined;

function templates(capacity: number): Templates {
  if (template?.capacity !== capacity) {
    const nulls: null[] = [];
    const doubles: number[] = [];
    const smis: number[] = [];
    for (let i = 0; i < capacity; i++) {
      nulls.push(null);
      doubles.push(0.5);
      smis.push(0);
    }
    doubles.fill(0);
    template = { capacity, nulls, doubles, smis };
  }
  return template;
}

import { type AsyncBuffer, parquetMetadataAsync, parquetRead, parquetReadObjects } from 'hyparquet';
import { ArchiverError, type IdSet } from '../../foundation/index.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import { type ByteSource, localFileSource, toSource } from '../store/byteSource.ts';
import { READ_COMPRESSORS as compressors } from './readCompressors.ts';

/**
 * The `record_id` column of an archive file, in file order: what dedupe needs from files already
 * written, without decoding the other columns.
 */
export async function readRecordIds(bytes: Uint8Array): Promise<string[]> {
  const rows = await parquetReadObjects({ file: asyncBuffer(bytes), columns: ['record_id'], compressors });
  return rows.map((row) => String(row.record_id));
}

/**
 * The rows of a Parquet source one row group at a time (only `columns`, when given): memory holds one
 * row group's objects and the ranges hyparquet fetched for it, never the whole file.
 */
export async function* readRowGroups(
  source: ByteSource | Uint8Array,
  columns?: string[],
): AsyncGenerator<Record<string, unknown>[]> {
  const file = sourceAsyncBuffer(toSource(source));
  const metadata = await parquetMetadataAsync(file);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    yield await parquetReadObjects({
      file,
      metadata,
      rowStart,
      rowEnd,
      compressors,
      ...(columns ? { columns } : {}),
    });
    rowStart = rowEnd;
  }
}

/**
 * One string column of a Parquet file, one row group at a time: a million-row file never becomes a
 * million-element array (what dedupe reads from every file a partition already holds).
 */
export async function* readStringColumn(
  source: ByteSource | Uint8Array,
  column: string,
): AsyncGenerator<string> {
  for await (const rows of readRowGroups(source, [column])) {
    for (const row of rows) yield String(row[column]);
  }
}

/** Byte arrays kept as the bytes they are: a column of ids is read without a string per value. */
const RAW_STRINGS = { stringFromBytes: (bytes: Uint8Array) => bytes } as const;

/**
 * Adds the ids of a column of 32-hex-character ids (`record_id`) to `into`, one row group at a time, each
 * value parsed from the bytes it is stored as (`IdSet.addHex`), never made a string: what the exactly-once
 * check reads from every file a partition holds. The same set as `readStringColumn` gives (a test holds
 * them equal); a value that is not an id fails (`INTERNAL`).
 */
export async function addHexIdColumn(
  source: ByteSource | Uint8Array,
  column: string,
  into: IdSet,
): Promise<void> {
  const file = sourceAsyncBuffer(toSource(source));
  const metadata = await parquetMetadataAsync(file);
  const add = (value: unknown): void => {
    if (value instanceof Uint8Array && value.length === 32) into.addHex(value, 0);
    else if (typeof value === 'string') into.add(value);
    else throw new ArchiverError('INTERNAL', `column ${column} holds a value that is not an id`);
  };
  let rowStart = 0;
  // hyparquet does not pass on what `onChunk` throws (it would surface as an unhandled rejection): the
  // first failure is kept and thrown once the row group is read.
  let failure: unknown;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    await parquetRead({
      file,
      metadata,
      rowStart,
      rowEnd,
      columns: [column],
      compressors,
      parsers: RAW_STRINGS,
      onChunk: ({ columnData }) => {
        try {
          for (let i = 0; i < columnData.length; i++) add(columnData[i]);
        } catch (error) {
          failure ??= error;
        }
      },
    });
    if (failure !== undefined) throw failure;
    rowStart = rowEnd;
  }
}

/**
 * Every row of an archive file as plain objects (timestamps as `Date`, `domains` as `string[]`), for
 * verification and tests; reads any codec hyparquet-compressors knows (SNAPPY, ZSTD, GZIP, ...).
 */
export async function readHistoryRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  return parquetReadObjects({ file: asyncBuffer(bytes), compressors });
}

/**
 * The rows of a local archive file as `ArchiveRow`s, one row group at a time (timestamps as `Date`,
 * ints as numbers, `domains` as `string[]`): what a rewrite of a draft file reads back.
 */
export async function* readHistoryFileRows(localPath: string): AsyncGenerator<ArchiveRow> {
  // Ranged reads: the file is never held whole in memory, one row group at a time is.
  for await (const rows of readRowGroups(await localFileSource(localPath))) {
    for (const row of rows) yield row as unknown as ArchiveRow;
  }
}

/** A source as hyparquet's `AsyncBuffer` (only the ranges hyparquet asks for are read). */
export function sourceAsyncBuffer(source: ByteSource): AsyncBuffer {
  return {
    byteLength: source.byteLength,
    slice: async (start, end) => {
      const bytes = await source.read(start, end ?? source.byteLength);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
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

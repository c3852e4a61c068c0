import type { ColumnChunk, SchemaTree } from 'hyparquet';
import type { ParquetWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder, ColumnSource, PageData } from 'hyparquet-writer/src/types.js';
import { isPackedColumn, type PackedColumn, packedRows, unpackColumn } from './packedColumn.ts';
import type { ParquetCompressors } from './parquetCompression.ts';
import { writeAsciiDeltaLengthColumn } from './writeAsciiDeltaLengthColumn.ts';
import { writeAsciiStringColumn } from './writeAsciiStringColumn.ts';
import { writeInt64DeltaColumn } from './writeInt64DeltaColumn.ts';

/**
 * A column as hyparquet-writer takes it, with compressors of its own merged over the file's, and its
 * `data` either the library's array or a {@link PackedColumn} (which only this writer takes).
 */
export type HistoryColumnSource = Omit<ColumnSource, 'data'> & {
  data: ColumnSource['data'] | PackedColumn;
  compressors?: ParquetCompressors;
};

/** hyparquet-writer's default page size (bytes of values a data page holds before the next begins). */
const PAGE_SIZE = 1_048_576;

const resolvers = new WeakMap<ParquetWriter, ReturnType<typeof schemaPathResolver>>();

/**
 * `parquet.write({ columnData, rowGroupSize: rows })` for exactly one row group of `rows` rows: the same
 * bytes and the same footer entries, column by column, except that INT64 columns written
 * DELTA_BINARY_PACKED (the timestamps) go through {@link writeInt64DeltaColumn}, in Number arithmetic,
 * where the library allocates a BigInt for every value, delta and packed byte, and ASCII string columns
 * written DELTA_LENGTH_BYTE_ARRAY without statistics (ids, addresses) through
 * {@link writeAsciiDeltaLengthColumn}, and the other ASCII string columns, PLAIN or dictionary-encoded
 * (`domains`, users, modes, token digests, columns all null in a group), through
 * {@link writeAsciiStringColumn}: each encoded once a column (or a dictionary) where the library encodes
 * each string. Every other column, and any value either cannot write exactly, is the library's own
 * `writeColumn`. Column options are read as the library reads them (the same defaults), and a column's own
 * `compressors` are merged over the file's; variant columns and bloom filters are not used by the archive
 * and are refused. Returns what the writer's flush returns.
 */
export function writeHistoryRowGroup(
  parquet: ParquetWriter,
  columnData: HistoryColumnSource[],
  rows: number,
): void | Promise<void> {
  const steps = rowGroupSteps(parquet, columnData, rows);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * {@link writeHistoryRowGroup}, giving the event loop a turn between two columns: encoded inline (the
 * Lambda's bundle has no worker), a row group is a long stretch of the walk's thread, and between two
 * columns the walk's answers are taken and its next requests sent. The same bytes; the caller writes the
 * file's next group once this one has resolved (`ParquetDraftWriter`'s chain).
 */
export async function writeHistoryRowGroupYielding(
  parquet: ParquetWriter,
  columnData: HistoryColumnSource[],
  rows: number,
): Promise<void> {
  const steps = rowGroupSteps(parquet, columnData, rows);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The row group's work, column by column: a step ends after each column but the last. */
function* rowGroupSteps(
  parquet: ParquetWriter,
  columnData: HistoryColumnSource[],
  rows: number,
): Generator<void, void | Promise<void>> {
  const writer = parquet.writer;
  // The library writes no row group for no rows.
  if (rows === 0) return;
  let resolve = resolvers.get(parquet);
  if (resolve === undefined) {
    resolve = schemaPathResolver(parquet.schema);
    resolvers.set(parquet, resolve);
  }
  for (const { codec = parquet.codec } of columnData) {
    if (codec !== 'UNCOMPRESSED' && !parquet.compressors[codec]) {
      throw new Error(`parquet no compressor for codec ${codec}`);
    }
  }
  const groupStartOffset = writer.offset;
  const columns: ColumnChunk[] = [];
  for (const [i, source] of columnData.entries()) {
    if (i > 0) yield;
    const {
      name,
      data,
      encoding,
      compressors,
      codec = parquet.codec,
      columnIndex = false,
      offsetIndex = true,
      bloomFilter,
      statistics = parquet.statistics,
    } = source;
    if (columnIndex && !offsetIndex)
      throw new Error('parquet ColumnIndex cannot be present without OffsetIndex');
    const held = data;
    if ((isPackedColumn(held) ? packedRows(held) : held.length) !== rows)
      throw new Error('parquet columns must have the same length');
    if (bloomFilter || source.shredding)
      throw new Error(`${name}: bloom filters and shredding are not written here`);
    const columnPath = resolve([name]);
    if (columnPath.at(-1)?.element.logical_type?.type === 'VARIANT') {
      throw new Error(`${name}: variant columns are not written here`);
    }
    for (const leafPath of leafPaths(columnPath)) {
      const schemaPath = leafPath.map((node) => node.element);
      const column: ColumnEncoder = {
        columnName: schemaPath
          .slice(1)
          .map((s) => s.name)
          .join('.'),
        element: schemaPath[schemaPath.length - 1] as ColumnEncoder['element'],
        schemaPath,
        codec,
        compressors: compressors ? { ...parquet.compressors, ...compressors } : parquet.compressors,
        stats: statistics,
        statisticsTruncateLength: parquet.statisticsTruncateLength,
        pageSize: PAGE_SIZE,
        dictionarySize: undefined,
        columnIndex,
        offsetIndex,
        encoding,
        bloomFilter,
        // The library's own object, undefined fields included (its serializer skips them).
      } as unknown as ColumnEncoder;
      const result =
        writeAsciiDeltaLengthColumn(writer, column, held as unknown[] | PackedColumn) ??
        writeUnpacked(writer, column, leafPath, isPackedColumn(held) ? unpackColumn(held) : held);
      columns.push(result.chunk);
      parquet.pendingIndexes.push(result as unknown as (typeof parquet.pendingIndexes)[number]);
    }
  }
  let total_byte_size = 0n;
  for (const { meta_data } of columns) total_byte_size += meta_data?.total_uncompressed_size ?? 0n;
  parquet.num_rows += BigInt(rows);
  parquet.row_groups.push({
    columns,
    total_byte_size,
    num_rows: BigInt(rows),
    total_compressed_size: BigInt(writer.offset - groupStartOffset),
  });
  return writer.flush?.();
}

/** A column from its rows, as strings: {@link writeAsciiStringColumn}, or else the library's way. */
function writeUnpacked(
  writer: ParquetWriter['writer'],
  column: ColumnEncoder,
  leafPath: SchemaTree[],
  rowValues: ColumnSource['data'],
) {
  return (
    writeAsciiStringColumn(writer, column, rowValues as unknown[]) ??
    writeLibraryColumn(writer, column, encodeNestedValues(leafPath, rowValues))
  );
}

/** A column the library's way, but for INT64 DELTA_BINARY_PACKED columns, packed in Number arithmetic. */
function writeLibraryColumn(writer: ParquetWriter['writer'], column: ColumnEncoder, pageData: PageData) {
  return writeInt64DeltaColumn(writer, column, pageData) ?? writeColumn({ writer, column, pageData });
}

/** Every path from the root to a leaf under `path`'s last node (a LIST has one), depth first. */
function leafPaths(path: SchemaTree[]): SchemaTree[][] {
  const node = path[path.length - 1] as SchemaTree;
  if (node.children.length === 0) return [path];
  return node.children.flatMap((child) => leafPaths([...path, child]));
}

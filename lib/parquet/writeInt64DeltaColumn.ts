import type { ColumnChunk } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { getMaxRepetitionLevel } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder, PageData, Writer } from 'hyparquet-writer/src/types.js';
import { deltaPackSafeIntegers, MAX_SAFE_SPREAD } from './deltaPackSafeIntegers.ts';

/** What `writeColumn` returns, for a column with no page indexes and no bloom filter. */
export interface WrittenColumn {
  chunk: ColumnChunk;
  columnIndex: undefined;
  offsetIndex: undefined;
  bloomFilter: undefined;
}

/**
 * hyparquet-writer's `writeColumn` for one shape of column, in Number arithmetic: a flat INT64 column
 * (the archive's timestamps, epoch milliseconds) written DELTA_BINARY_PACKED, without dictionary, page
 * indexes or bloom filter. The library turns every value into a BigInt and encodes the deltas as BigInts;
 * this writes the same bytes and the same column metadata (statistics, encodings, sizes, offsets) from
 * the numbers (test/parquet/writeHistoryRowGroup.test.ts compares whole files). Returns undefined, having
 * written nothing, for any other column or any value that is not a safe integer within
 * `MAX_SAFE_SPREAD` of the others: the caller then hands the column to the library.
 */
export function writeInt64DeltaColumn(
  writer: Writer,
  column: ColumnEncoder,
  pageData: PageData,
): WrittenColumn | undefined {
  const { element, schemaPath, stats, pageSize, encoding } = column;
  const { values, definitionLevels, repetitionLevels, maxDefinitionLevel } = pageData;
  if (element.type !== 'INT64' || encoding !== 'DELTA_BINARY_PACKED') return;
  if (repetitionLevels.length > 0 || getMaxRepetitionLevel(schemaPath) > 0) return;
  if (column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  if (element.logical_type?.type === 'INTEGER' && !element.logical_type.isSigned) return;
  if (element.converted_type === 'UINT_64') return;
  const statistics = statisticsOf(values);
  if (statistics === undefined) return;

  const offsetStart = writer.offset;
  const data_page_offset = BigInt(writer.offset);
  const pages = getPageBoundaries(values, 'INT64', element.type_length, pageSize, repetitionLevels);
  let uncompressedSize = 0;
  for (const { start, end } of pages) {
    uncompressedSize += writePage(writer, column, {
      values: values.slice(start, end),
      definitionLevels: definitionLevels.slice(start, end),
      repetitionLevels: [],
      maxDefinitionLevel,
    });
  }
  return {
    chunk: {
      meta_data: {
        type: 'INT64',
        encodings: ['DELTA_BINARY_PACKED'],
        path_in_schema: schemaPath.slice(1).map((s) => s.name),
        codec: column.codec ?? 'UNCOMPRESSED',
        num_values: BigInt(values.length),
        total_compressed_size: BigInt(writer.offset - offsetStart),
        total_uncompressed_size: BigInt(uncompressedSize),
        data_page_offset,
        dictionary_page_offset: undefined,
        statistics: stats ? statistics : undefined,
        encoding_stats: stats
          ? [{ page_type: 'DATA_PAGE_V2', encoding: 'DELTA_BINARY_PACKED', count: pages.length }]
          : undefined,
        geospatial_statistics: undefined,
        // Undefined fields as the library writes them; its serializer skips them.
      } as unknown as NonNullable<ColumnChunk['meta_data']>,
      file_offset: BigInt(offsetStart),
    },
    columnIndex: undefined,
    offsetIndex: undefined,
    bloomFilter: undefined,
  };
}

interface Statistics {
  min_value: number | undefined;
  max_value: number | undefined;
  null_count: bigint;
  nan_count: undefined;
}

/**
 * The library's chunk statistics of these values (min, max, nulls; signed zero normalised), or undefined
 * when a value is not a safe integer or the values spread wider than `MAX_SAFE_SPREAD`.
 */
function statisticsOf(values: ArrayLike<unknown>): Statistics | undefined {
  let min: number | undefined;
  let max: number | undefined;
  let nulls = 0n;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls++;
      continue;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return;
    if (min === undefined || v < min) min = v;
    if (max === undefined || v > max) max = v;
  }
  if (min !== undefined && max !== undefined && max - min > MAX_SAFE_SPREAD) return;
  if (min === 0) min = -0;
  if (max === 0) max = 0;
  return { min_value: min, max_value: max, null_count: nulls, nan_count: undefined };
}

/** The library's `writeDataPageV2` for this column shape; returns the page's uncompressed size. */
function writePage(writer: Writer, column: ColumnEncoder, pageData: PageData): number {
  const { codec, compressors } = column;
  const { values, definitionLevels, maxDefinitionLevel } = pageData;
  const levels = new ByteWriter();
  let nulls = 0;
  for (let i = 0; i < definitionLevels.length; i++) {
    if ((definitionLevels[i] as number) < maxDefinitionLevel) nulls++;
  }
  let definitionLength = 0;
  if (maxDefinitionLevel) {
    definitionLength = writeRleBitPackedHybrid(
      levels,
      definitionLevels,
      Math.ceil(Math.log2(maxDefinitionLevel + 1)),
    );
  }
  const nonNull = nulls ? Array.prototype.filter.call(values, (v) => v !== null && v !== undefined) : values;
  const page = new ByteWriter();
  // An all-null page has nothing to pack: the library writes its empty header.
  if (!deltaPackSafeIntegers(page, nonNull)) deltaBinaryPack(page, nonNull as number[], 'INT64');
  const pageBytes = page.getBytes();
  const compressed = compressors[codec]?.(pageBytes) ?? pageBytes;
  const headerStart = writer.offset;
  writePageHeader(writer, {
    type: 'DATA_PAGE_V2',
    uncompressed_page_size: levels.offset + page.offset,
    compressed_page_size: levels.offset + compressed.length,
    data_page_header_v2: {
      num_values: definitionLevels.length || values.length,
      num_nulls: nulls,
      num_rows: values.length,
      encoding: 'DELTA_BINARY_PACKED',
      definition_levels_byte_length: definitionLength,
      repetition_levels_byte_length: 0,
      is_compressed: !!codec,
    },
  });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(levels.getBytes());
  writer.appendBytes(compressed);
  return headerSize + levels.offset + page.offset;
}

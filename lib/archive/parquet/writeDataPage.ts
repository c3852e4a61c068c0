import type { ColumnChunk, Encoding } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';

/** What `writeColumn` returns, for a column with no page indexes and no bloom filter. */
export interface WrittenColumn {
  chunk: ColumnChunk;
  columnIndex: undefined;
  offsetIndex: undefined;
  bloomFilter: undefined;
}

/** One data page of a column: its levels and its encoded values. */
export interface DataPage {
  /** Rows in the page (nulls included); a list column's rows are counted from its repetition levels. */
  rows: number;
  /** One level a value slot (empty for a flat REQUIRED column). */
  definitionLevels: ArrayLike<number>;
  maxDefinitionLevel: number;
  /** One level a value slot; absent or empty for a column with no repeated level. */
  repetitionLevels?: ArrayLike<number>;
  maxRepetitionLevel?: number;
  encoding: Encoding;
  /** The page's encoded non-null values, before compression. */
  body: ByteWriter;
}

/**
 * hyparquet-writer's `writeDataPageV2` for a column whose values are already encoded: the repetition
 * then definition levels (RLE/bit-packed hybrid), the compressed body, the page header, in the library's
 * order and bytes.
 * Returns the page's uncompressed size, header included, as the library counts it.
 */
export function writeDataPage(writer: Writer, column: ColumnEncoder, page: DataPage): number {
  const { codec, compressors } = column;
  const { rows, definitionLevels, maxDefinitionLevel, encoding, body } = page;
  const { repetitionLevels = [], maxRepetitionLevel = 0 } = page;
  const levels = new ByteWriter();
  let nulls = 0;
  for (let i = 0; i < definitionLevels.length; i++) {
    if ((definitionLevels[i] as number) < maxDefinitionLevel) nulls++;
  }
  const repetitionLength = writeLevels(levels, repetitionLevels, maxRepetitionLevel);
  const definitionLength = writeLevels(levels, definitionLevels, maxDefinitionLevel);
  const pageBytes = body.getBytes();
  const compressed = compressors[codec]?.(pageBytes) ?? pageBytes;
  const headerStart = writer.offset;
  writePageHeader(writer, {
    type: 'DATA_PAGE_V2',
    uncompressed_page_size: levels.offset + body.offset,
    compressed_page_size: levels.offset + compressed.length,
    data_page_header_v2: {
      num_values: definitionLevels.length || rows,
      num_nulls: nulls,
      num_rows: rows,
      encoding,
      definition_levels_byte_length: definitionLength,
      repetition_levels_byte_length: repetitionLength,
      is_compressed: !!codec,
    },
  });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(levels.getBytes());
  writer.appendBytes(compressed);
  return headerSize + levels.offset + body.offset;
}

/** Levels of at most `max`, RLE/bit-packed at the width `max` needs; nothing when `max` is 0. */
function writeLevels(out: ByteWriter, levels: ArrayLike<number>, max: number): number {
  if (!max) return 0;
  return writeRleBitPackedHybrid(out, levels as number[], Math.ceil(Math.log2(max + 1)));
}

/** A page boundary as `getPageBoundaries` gives it: value slots `start` (inclusive) to `end`. */
export interface PageBounds {
  start: number;
  end: number;
}

/**
 * Writes a column as the library does: its dictionary page first when there is one (`dictionaryPage`
 * writes it and returns its uncompressed size, header included), then one data page of `encoding` for
 * each of `bounds`, in order (`pageAt` gives each page's levels and encoded values). Returns the column
 * chunk `writeColumn` returns; `values` counts the column's value slots (a flat column's rows).
 */
export function writeColumnPages(
  writer: Writer,
  column: ColumnEncoder,
  written: {
    values: number;
    bounds: readonly PageBounds[];
    encoding: Encoding;
    statistics: unknown;
    dictionaryPage?: ((writer: Writer) => number) | undefined;
  },
  pageAt: (start: number, end: number) => Omit<DataPage, 'encoding'>,
): WrittenColumn {
  const { element, schemaPath, stats } = column;
  const { values, bounds, encoding, statistics, dictionaryPage } = written;
  const offsetStart = writer.offset;
  let uncompressedSize = 0;
  const dictionary_page_offset = dictionaryPage ? BigInt(writer.offset) : undefined;
  if (dictionaryPage) uncompressedSize += dictionaryPage(writer);
  const data_page_offset = BigInt(writer.offset);
  for (const { start, end } of bounds) {
    uncompressedSize += writeDataPage(writer, column, { ...pageAt(start, end), encoding });
  }
  const pages = { page_type: 'DATA_PAGE_V2', encoding, count: bounds.length };
  return {
    chunk: {
      meta_data: {
        type: element.type,
        encodings: dictionaryPage ? ['PLAIN', encoding] : [encoding],
        path_in_schema: schemaPath.slice(1).map((s) => s.name),
        codec: column.codec ?? 'UNCOMPRESSED',
        num_values: BigInt(values),
        total_compressed_size: BigInt(writer.offset - offsetStart),
        total_uncompressed_size: BigInt(uncompressedSize),
        data_page_offset,
        dictionary_page_offset,
        statistics: stats ? statistics : undefined,
        encoding_stats: stats
          ? dictionaryPage
            ? [{ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 }, pages]
            : [pages]
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

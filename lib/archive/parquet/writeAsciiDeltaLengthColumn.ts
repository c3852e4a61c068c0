import { ByteWriter } from 'hyparquet-writer';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';
import { isPackedColumn, type PackedColumn, packStrings } from './packedColumn.ts';
import { type Slots, slotsPage } from './stringSlots.ts';
import { type PageBounds, type WrittenColumn, writeColumnPages } from './writeDataPage.ts';

/**
 * hyparquet-writer's `writeColumn` for one shape of column: a flat string column (the archive's ids and
 * addresses) written DELTA_LENGTH_BYTE_ARRAY, without statistics, dictionary, page indexes or bloom
 * filter, when every value is ASCII. It takes the column's strings, or the column already packed (a
 * {@link PackedColumn} of strings: what a row group holds while it fills). The library encodes each
 * string into a buffer of its own and copies it again into the page; here the column's bytes are joined
 * once, each page's bytes are a slice of them, and the lengths (bytes, which for ASCII are the strings'
 * lengths) are delta-packed by the library's own encoder. The pages are cut where the library's
 * `getPageBoundaries` cuts them, so the file is the same, byte for byte
 * (test/parquet/writeHistoryRowGroup.test.ts compares whole files). Returns undefined, having written
 * nothing, for any other column, a packed list, a value that is neither a string nor (in an OPTIONAL
 * column) null, or a character past ASCII: the caller then hands the column to the library.
 */
export function writeAsciiDeltaLengthColumn(
  writer: Writer,
  column: ColumnEncoder,
  values: readonly unknown[] | PackedColumn,
): WrittenColumn | undefined {
  const { element, stats, pageSize, encoding, schemaPath } = column;
  if (element.type !== 'BYTE_ARRAY' || encoding !== 'DELTA_LENGTH_BYTE_ARRAY') return;
  if (stats || column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  const top = schemaPath[1];
  if (schemaPath.length !== 2 || !top || top.repetition_type === 'REPEATED') return;
  const packed = isPackedColumn(values)
    ? values
    : packStrings(values as readonly unknown[], 0, (values as readonly unknown[]).length);
  if (packed?.kind !== 'strings') return;
  const { bytes, lengths } = packed;
  const rows = lengths.length;
  const optional = top.repetition_type === 'OPTIONAL';
  const definitionLevels: number[] = optional ? new Array(rows) : [];
  for (let i = 0; i < rows; i++) {
    const present = (lengths[i] as number) >= 0;
    if (optional) definitionLevels[i] = present ? 1 : 0;
    else if (!present) return;
  }
  const slots: Slots = {
    values: [],
    definitionLevels,
    repetitionLevels: [],
    maxDefinitionLevel: optional ? 1 : 0,
    maxRepetitionLevel: 0,
  };
  let byteStart = 0;
  return writeColumnPages(
    writer,
    column,
    {
      values: rows,
      bounds: pageBounds(lengths, pageSize),
      encoding: 'DELTA_LENGTH_BYTE_ARRAY',
      statistics: undefined,
    },
    (start, end) => {
      let count = 0;
      for (let i = start; i < end; i++) if ((lengths[i] as number) >= 0) count++;
      const pageLengths = new Int32Array(count);
      let byteEnd = byteStart;
      count = 0;
      for (let i = start; i < end; i++) {
        const length = lengths[i] as number;
        if (length < 0) continue;
        pageLengths[count++] = length;
        byteEnd += length;
      }
      const body = new ByteWriter();
      deltaBinaryPack(body, pageLengths, 'INT32');
      body.appendBytes(bytes.subarray(byteStart, byteEnd));
      byteStart = byteEnd;
      return slotsPage(slots, start, end, body);
    },
  );
}

/**
 * Where the library's `getPageBoundaries` cuts a flat string column whose values have these lengths (−1
 * for null): a page ends before the value that brings its bytes to `pageSize`, unless it is the page's
 * first; no `pageSize`, one page.
 */
function pageBounds(lengths: Int32Array, pageSize: number | undefined): PageBounds[] {
  if (!pageSize) return [{ start: 0, end: lengths.length }];
  const bounds: PageBounds[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < lengths.length; i++) {
    const size = Math.max(0, lengths[i] as number);
    bytes += size;
    if (bytes >= pageSize && i > start) {
      bounds.push({ start, end: i });
      start = i;
      bytes = size;
    }
  }
  if (start < lengths.length) bounds.push({ start, end: lengths.length });
  return bounds;
}

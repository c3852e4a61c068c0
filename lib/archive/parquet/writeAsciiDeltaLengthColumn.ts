import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';
import { asciiBytes, presentValues, slotsOf, slotsPage } from './stringSlots.ts';
import { type WrittenColumn, writeColumnPages } from './writeDataPage.ts';

/**
 * hyparquet-writer's `writeColumn` for one shape of column, from the column's strings: a flat string
 * column (the archive's ids and addresses) written DELTA_LENGTH_BYTE_ARRAY, without statistics,
 * dictionary, page indexes or bloom filter, when every value is ASCII. The library encodes each string
 * into a buffer of its own and copies it again into the page; here the column is joined and encoded
 * once, each page's bytes are a slice of that, and the lengths (bytes, which for ASCII are the strings'
 * lengths) are delta-packed by the library's own encoder. The pages are cut where the library cuts them
 * (`getPageBoundaries` on the same strings), so the file is the same, byte for byte
 * (test/parquet/writeHistoryRowGroup.test.ts compares whole files). Returns undefined, having written
 * nothing, for any other column, a value that is neither a string nor (in an OPTIONAL column) null, or
 * a character past ASCII: the caller then hands the column to the library.
 */
export function writeAsciiDeltaLengthColumn(
  writer: Writer,
  column: ColumnEncoder,
  values: readonly unknown[],
): WrittenColumn | undefined {
  const { element, stats, pageSize, encoding } = column;
  if (element.type !== 'BYTE_ARRAY' || encoding !== 'DELTA_LENGTH_BYTE_ARRAY') return;
  if (stats || column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  const slots = slotsOf(column, values);
  if (slots === undefined || slots.maxRepetitionLevel > 0) return;
  const bytes = asciiBytes(presentValues(slots));
  if (bytes === undefined) return;

  const bounds = getPageBoundaries(slots.values, 'BYTE_ARRAY', undefined, pageSize, []);
  let byteStart = 0;
  return writeColumnPages(
    writer,
    column,
    { values: values.length, bounds, encoding: 'DELTA_LENGTH_BYTE_ARRAY', statistics: undefined },
    (start, end) => {
      const lengths: number[] = [];
      let byteEnd = byteStart;
      for (let i = start; i < end; i++) {
        const value = slots.values[i];
        if (value === undefined) continue;
        lengths.push(value.length);
        byteEnd += value.length;
      }
      const body = new ByteWriter();
      deltaBinaryPack(body, Int32Array.from(lengths), 'INT32');
      body.appendBytes(bytes.subarray(byteStart, byteEnd));
      byteStart = byteEnd;
      return slotsPage(slots, start, end, body);
    },
  );
}

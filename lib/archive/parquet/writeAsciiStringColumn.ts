import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { useDictionary, writeDictionaryPage } from 'hyparquet-writer/src/dictionary.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';
import { asciiBytes, presentValues, type Slots, slotsOf, slotsPage } from './stringSlots.ts';
import { type WrittenColumn, writeColumnPages } from './writeDataPage.ts';

/**
 * hyparquet-writer's `writeColumn` for string columns written PLAIN or RLE_DICTIONARY, from the column's
 * strings: a flat string column, or a list of strings in the standard shape (a REQUIRED LIST of REQUIRED
 * elements, the archive's `domains`), with no encoding forced or one of those two, no page indexes and
 * no bloom filter, whose every string is ASCII. The library encodes each string into a buffer of its
 * own, walks the rows value by value to lay out the levels, and compares strings code point by code
 * point for the statistics; here the levels are laid out in one pass, the strings are encoded once (the
 * column for PLAIN, its dictionary for RLE_DICTIONARY), and for ASCII the UTF-16 order of `<` is the byte
 * order the statistics need. Whether a dictionary is built, and its order and indexes, are the library's
 * own `useDictionary` on the same values. So the file is the same, byte for byte
 * (test/parquet/writeHistoryRowGroup.test.ts compares whole files). Returns undefined, having written
 * nothing, for any other column, any value the library would refuse, or a character past ASCII: the
 * caller then hands the column to the library.
 */
export function writeAsciiStringColumn(
  writer: Writer,
  column: ColumnEncoder,
  rows: readonly unknown[],
): WrittenColumn | undefined {
  const { element, encoding } = column;
  if (element.type !== 'BYTE_ARRAY') return;
  // A forced dictionary (users, modes, token digests) is left to the library: measured, this writer
  // gained nothing there (bench/PROFILE.md). It writes a dictionary only where the library's own test
  // finds one pays, so a column such as `domains` is never built twice.
  if (encoding !== undefined && encoding !== 'PLAIN') return;
  if (column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  const slots = slotsOf(column, rows);
  if (slots === undefined) return;
  const { dictionary, indexes } = useDictionary(
    slots.values,
    'BYTE_ARRAY',
    undefined,
    encoding,
    column.dictionarySize,
    slots.maxDefinitionLevel === 0,
  );
  if (dictionary === undefined || indexes === undefined) return writePlainColumn(writer, column, slots);
  if (dictionary.length === 0) return;
  return writeDictionaryColumn(writer, column, slots, dictionary as string[], indexes);
}

/** The column PLAIN: each page's values as lengths and bytes, sliced from the column encoded once. */
function writePlainColumn(writer: Writer, column: ColumnEncoder, slots: Slots): WrittenColumn | undefined {
  const { values, repetitionLevels } = slots;
  const strings = presentValues(slots);
  const bytes = asciiBytes(strings);
  if (bytes === undefined) return;
  const bounds = getPageBoundaries(values, 'BYTE_ARRAY', undefined, column.pageSize, repetitionLevels);
  const statistics = statisticsOf(column, strings, values.length - strings.length);
  let byteStart = 0;
  return writeColumnPages(
    writer,
    column,
    { values: values.length, bounds, encoding: 'PLAIN', statistics },
    (start, end) => {
      let count = 0;
      let byteEnd = byteStart;
      for (let i = start; i < end; i++) {
        const value = values[i];
        if (value === undefined) continue;
        count++;
        byteEnd += value.length;
      }
      // PLAIN BYTE_ARRAY: each value's length (4 bytes, little-endian), then its bytes.
      const out = Buffer.alloc(count * 4 + (byteEnd - byteStart));
      let at = 0;
      for (let i = start; i < end; i++) {
        const value = values[i];
        if (value === undefined) continue;
        at = out.writeUInt32LE(value.length, at);
        at += bytes.copy(out, at, byteStart, byteStart + value.length);
        byteStart += value.length;
      }
      const body = new ByteWriter();
      body.appendBytes(out);
      return slotsPage(slots, start, end, body);
    },
  );
}

/**
 * The column RLE_DICTIONARY: the dictionary page (the library's, of the dictionary encoded once), then
 * each page's indexes, bit-packed at the width of the page's largest, as the library writes them.
 */
function writeDictionaryColumn(
  writer: Writer,
  column: ColumnEncoder,
  slots: Slots,
  dictionary: string[],
  indexes: number[],
): WrittenColumn | undefined {
  const bytes = asciiBytes(dictionary);
  if (bytes === undefined) return;
  const entries: Uint8Array[] = [];
  let at = 0;
  for (const entry of dictionary) {
    entries.push(bytes.subarray(at, at + entry.length));
    at += entry.length;
  }
  const { values, repetitionLevels } = slots;
  // Every value is an entry of the dictionary: its min and max are the column's.
  let nonNull = 0;
  for (let i = 0; i < values.length; i++) if (values[i] !== undefined) nonNull++;
  const statistics = statisticsOf(column, dictionary, values.length - nonNull);
  const bounds = getPageBoundaries(indexes, 'INT32', undefined, column.pageSize, repetitionLevels);
  return writeColumnPages(
    writer,
    column,
    {
      values: values.length,
      bounds,
      encoding: 'RLE_DICTIONARY',
      statistics,
      dictionaryPage: (out) => writeDictionaryPage(out, column, entries),
    },
    (start, end) => {
      const pageIndexes: number[] = [];
      let maxValue = 0;
      for (let i = start; i < end; i++) {
        const index = indexes[i];
        if (index === undefined) continue;
        pageIndexes.push(index);
        if (index > maxValue) maxValue = index;
      }
      const bitWidth = Math.ceil(Math.log2(maxValue + 1));
      const body = new ByteWriter();
      body.appendUint8(bitWidth);
      writeRleBitPackedHybrid(body, pageIndexes, bitWidth);
      return slotsPage(slots, start, end, body);
    },
  );
}

/**
 * The library's chunk statistics of a string column whose non-null values are among `strings` (all of
 * them, or its dictionary), ASCII all: min and max by `<`, and its `nulls`. Undefined without stats.
 */
function statisticsOf(column: ColumnEncoder, strings: readonly string[], nulls: number) {
  if (!column.stats) return undefined;
  let min: string | undefined;
  let max: string | undefined;
  for (const value of strings) {
    if (min === undefined || value < min) min = value;
    if (max === undefined || value > max) max = value;
  }
  return { min_value: min, max_value: max, null_count: BigInt(nulls), nan_count: undefined };
}

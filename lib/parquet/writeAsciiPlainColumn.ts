import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { useDictionary } from 'hyparquet-writer/src/dictionary.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';
import { type WrittenColumn, writeColumnPages } from './writeDataPage.ts';

/** A column's value slots and levels, as the library's Dremel encoding lays them out. */
interface Slots {
  values: (string | undefined)[];
  definitionLevels: number[];
  repetitionLevels: number[];
  maxDefinitionLevel: number;
  maxRepetitionLevel: number;
}

/**
 * hyparquet-writer's `writeColumn` for string columns it would write PLAIN, from the column's strings:
 * a flat string column, or a list of strings in the standard shape (a REQUIRED LIST of REQUIRED
 * elements, the archive's `domains`), with no encoding forced (or PLAIN), no page indexes and no bloom
 * filter, whose every string is ASCII. The library encodes each string into a buffer of its own, walks
 * the rows value by value to lay out the levels, and compares strings code point by code point for the
 * statistics; here the levels are laid out in one pass, the column is encoded once, and for ASCII the
 * UTF-16 order of `<` is the byte order the statistics need. Whether a dictionary pays is decided by
 * the library's own `useDictionary` on the same values: when it would build one, this writes nothing.
 * So the file is the same, byte for byte (test/parquet/writeHistoryRowGroup.test.ts compares whole
 * files). Returns undefined, having written nothing, for any other column, any value the library would
 * refuse or write otherwise, or a character past ASCII: the caller then hands the column to the library.
 */
export function writeAsciiPlainColumn(
  writer: Writer,
  column: ColumnEncoder,
  rows: readonly unknown[],
): WrittenColumn | undefined {
  const { element, stats, pageSize, encoding } = column;
  if (element.type !== 'BYTE_ARRAY' || (encoding !== undefined && encoding !== 'PLAIN')) return;
  if (column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  const slots = slotsOf(column, rows);
  if (slots === undefined) return;
  const { values, definitionLevels, repetitionLevels, maxDefinitionLevel, maxRepetitionLevel } = slots;

  const strings: string[] = [];
  let min: string | undefined;
  let max: string | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === undefined) continue;
    strings.push(value);
    if (min === undefined || value < min) min = value;
    if (max === undefined || value > max) max = value;
  }
  const joined = strings.join('');
  const bytes = Buffer.from(joined, 'utf8');
  // More UTF-8 bytes than UTF-16 units: a character past ASCII (a lone surrogate included).
  if (bytes.length !== joined.length) return;
  const { dictionary } = useDictionary(
    values,
    'BYTE_ARRAY',
    undefined,
    encoding,
    column.dictionarySize,
    maxDefinitionLevel === 0,
  );
  if (dictionary) return;
  const statistics = stats
    ? {
        min_value: min,
        max_value: max,
        null_count: BigInt(values.length - strings.length),
        nan_count: undefined,
      }
    : undefined;

  const bounds = getPageBoundaries(values, 'BYTE_ARRAY', undefined, pageSize, repetitionLevels);
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
      return {
        rows: repetitionLevels.length ? countRows(repetitionLevels, start, end) : end - start,
        definitionLevels: definitionLevels.slice(start, end),
        maxDefinitionLevel,
        repetitionLevels: repetitionLevels.slice(start, end),
        maxRepetitionLevel,
        body,
      };
    },
  );
}

/**
 * The value slots and levels of `rows` in `column`, or undefined for a shape this does not write or a
 * value the library would refuse: a flat column holds a string a row (or null, when OPTIONAL); the list
 * shape holds an array of strings a row, an empty one taking one empty slot.
 */
function slotsOf(column: ColumnEncoder, rows: readonly unknown[]): Slots | undefined {
  const path = column.schemaPath;
  const values: (string | undefined)[] = [];
  const definitionLevels: number[] = [];
  const repetitionLevels: number[] = [];
  const top = path[1];
  if (path.length === 2 && top && top.repetition_type !== 'REPEATED') {
    const optional = top.repetition_type === 'OPTIONAL';
    for (let i = 0; i < rows.length; i++) {
      const value = rows[i];
      if (typeof value === 'string') {
        values.push(value);
        if (optional) definitionLevels.push(1);
      } else if (optional && (value === null || value === undefined)) {
        values.push(undefined);
        definitionLevels.push(0);
      } else return;
    }
    return {
      values,
      definitionLevels,
      repetitionLevels,
      maxDefinitionLevel: optional ? 1 : 0,
      maxRepetitionLevel: 0,
    };
  }
  const [, list, repeated, item] = path;
  const standardList =
    path.length === 4 &&
    list?.repetition_type === 'REQUIRED' &&
    list.converted_type === 'LIST' &&
    repeated?.repetition_type === 'REPEATED' &&
    item?.repetition_type === 'REQUIRED';
  if (!standardList) return;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!Array.isArray(row)) return;
    if (row.length === 0) {
      values.push(undefined);
      definitionLevels.push(0);
      repetitionLevels.push(0);
      continue;
    }
    for (let j = 0; j < row.length; j++) {
      const value: unknown = row[j];
      if (typeof value !== 'string') return;
      values.push(value);
      definitionLevels.push(1);
      repetitionLevels.push(j === 0 ? 0 : 1);
    }
  }
  return { values, definitionLevels, repetitionLevels, maxDefinitionLevel: 1, maxRepetitionLevel: 1 };
}

function countRows(repetitionLevels: readonly number[], start: number, end: number): number {
  let rows = 0;
  for (let i = start; i < end; i++) if (repetitionLevels[i] === 0) rows++;
  return rows;
}

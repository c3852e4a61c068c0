import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import type { ColumnEncoder, Writer } from 'hyparquet-writer/src/types.js';
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
  const { element, schemaPath, stats, pageSize, encoding } = column;
  if (element.type !== 'BYTE_ARRAY' || encoding !== 'DELTA_LENGTH_BYTE_ARRAY') return;
  if (schemaPath.length !== 2 || element.repetition_type === 'REPEATED') return;
  if (stats || column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  const optional = element.repetition_type === 'OPTIONAL';
  const strings: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'string') strings.push(value);
    else if (!optional || (value !== null && value !== undefined)) return;
  }
  const joined = strings.join('');
  const bytes = Buffer.from(joined, 'utf8');
  // More UTF-8 bytes than UTF-16 units: a character past ASCII (a lone surrogate included).
  if (bytes.length !== joined.length) return;

  const bounds = getPageBoundaries(values as unknown[], 'BYTE_ARRAY', undefined, pageSize, []);
  const maxDefinitionLevel = optional ? 1 : 0;
  let byteStart = 0;
  return writeColumnPages(
    writer,
    column,
    { values: values.length, bounds, encoding: 'DELTA_LENGTH_BYTE_ARRAY', statistics: undefined },
    (start, end) => {
      const definitionLevels: number[] = optional ? new Array(end - start) : [];
      const lengths: number[] = [];
      let byteEnd = byteStart;
      for (let i = start; i < end; i++) {
        const value = values[i];
        const present = typeof value === 'string';
        if (optional) definitionLevels[i - start] = present ? 1 : 0;
        if (present) {
          lengths.push(value.length);
          byteEnd += value.length;
        }
      }
      const body = new ByteWriter();
      deltaBinaryPack(body, Int32Array.from(lengths), 'INT32');
      body.appendBytes(bytes.subarray(byteStart, byteEnd));
      byteStart = byteEnd;
      return { rows: end - start, definitionLevels, maxDefinitionLevel, body };
    },
  );
}

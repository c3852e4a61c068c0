import { ByteWriter } from 'hyparquet-writer';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import { getMaxRepetitionLevel } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder, PageData, Writer } from 'hyparquet-writer/src/types.js';
import { deltaPackSafeIntegers, MAX_SAFE_SPREAD } from './deltaPackSafeIntegers.ts';
import { type WrittenColumn, writeColumnPages } from './writeDataPage.ts';

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
  const { element, schemaPath, pageSize, encoding } = column;
  const { values, definitionLevels, repetitionLevels, maxDefinitionLevel } = pageData;
  if (element.type !== 'INT64' || encoding !== 'DELTA_BINARY_PACKED') return;
  if (repetitionLevels.length > 0 || getMaxRepetitionLevel(schemaPath) > 0) return;
  if (column.columnIndex || column.offsetIndex || column.bloomFilter) return;
  if (element.logical_type?.type === 'INTEGER' && !element.logical_type.isSigned) return;
  if (element.converted_type === 'UINT_64') return;
  const statistics = statisticsOf(values);
  if (statistics === undefined) return;

  const bounds = getPageBoundaries(values, 'INT64', element.type_length, pageSize, repetitionLevels);
  return writeColumnPages(
    writer,
    column,
    { values: values.length, bounds, encoding: 'DELTA_BINARY_PACKED', statistics },
    (start, end) => {
      const levels = definitionLevels.slice(start, end);
      const pageValues = values.slice(start, end);
      const nonNull = levels.some((level) => level < maxDefinitionLevel)
        ? Array.prototype.filter.call(pageValues, (v) => v !== null && v !== undefined)
        : pageValues;
      const body = new ByteWriter();
      // An all-null page has nothing to pack: the library writes its empty header.
      if (!deltaPackSafeIntegers(body, nonNull)) deltaBinaryPack(body, nonNull as number[], 'INT64');
      return { rows: end - start, definitionLevels: levels, maxDefinitionLevel, body };
    },
  );
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

import { type HistoryColumnOptions, historyColumnOptions } from './historyColumnOptions.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from './historySchema.ts';
import { isPackedColumn, type PackedColumn } from './packedColumn.ts';
import type { HistoryColumnSource } from './writeHistoryRowGroup.ts';

const COLUMN_OPTIONS = historyColumnOptions(HISTORY_PARQUET_SCHEMA);

/** A row group's column: its values, packed (`packHistoryColumns`) or not, or a function that makes them. */
export type GroupColumn = unknown[] | PackedColumn | (() => unknown[] | PackedColumn);

/**
 * The columns of one history row group as hyparquet-writer takes them: `group[i]` holds the values of
 * `HISTORY_COLUMN_NAMES[i]` (timestamps as epoch milliseconds), each with its encoding and statistics
 * options (`historyColumnOptions`). A column given as a function is made when its `data` is read, once a
 * read: `writeHistoryRowGroup` reads each column's once, as it reaches it.
 */
export function historyColumnData(group: readonly GroupColumn[]): HistoryColumnSource[] {
  return HISTORY_COLUMN_NAMES.map((name, i) => {
    const options: HistoryColumnOptions = COLUMN_OPTIONS.get(name) ?? {
      statistics: true,
      offsetIndex: false,
    };
    const held = group[i] as GroupColumn;
    const values = typeof held === 'function' ? held : () => held;
    // A dictionary of nothing (a column that is all null in this group) is left to the library.
    if (options.encoding === 'RLE_DICTIONARY' && allNull(values())) {
      const { encoding: _dropped, ...rest } = options;
      return withData({ name, ...rest }, values);
    }
    return withData({ name, ...options }, values);
  });
}

/** The source with `data` read from `values` when the writer reaches its column, not before. */
function withData(source: object, values: () => unknown[] | PackedColumn): HistoryColumnSource {
  return Object.defineProperty(source, 'data', { get: values, enumerable: true }) as HistoryColumnSource;
}

/** Whether a column holds only nulls. */
function allNull(values: unknown[] | PackedColumn): boolean {
  if (!isPackedColumn(values)) return !values.some((v) => v !== null);
  return values.kind === 'strings' && values.lengths.every((length) => length < 0);
}

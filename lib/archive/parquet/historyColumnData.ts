import { type HistoryColumnOptions, historyColumnOptions } from './historyColumnOptions.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from './historySchema.ts';
import type { HistoryColumnSource } from './writeHistoryRowGroup.ts';

const COLUMN_OPTIONS = historyColumnOptions(HISTORY_PARQUET_SCHEMA);

/**
 * The columns of one history row group as hyparquet-writer takes them: `group[i]` holds the values of
 * `HISTORY_COLUMN_NAMES[i]` (timestamps as epoch milliseconds), each with its encoding and statistics
 * options (`historyColumnOptions`).
 */
export function historyColumnData(group: readonly unknown[][]): HistoryColumnSource[] {
  return HISTORY_COLUMN_NAMES.map((name, i) => {
    const options: HistoryColumnOptions = COLUMN_OPTIONS.get(name) ?? {
      statistics: true,
      offsetIndex: false,
    };
    const data = group[i] as unknown[];
    // A dictionary of nothing (a column that is all null in this group) is left to the library.
    if (options.encoding === 'RLE_DICTIONARY' && !data.some((v) => v !== null)) {
      const { encoding: _dropped, ...rest } = options;
      return { name, data, ...rest } as HistoryColumnSource;
    }
    return { name, data, ...options } as HistoryColumnSource;
  });
}

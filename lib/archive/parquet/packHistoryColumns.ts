import { HISTORY_COLUMN_KINDS } from './historySchema.ts';
import { type PackedColumn, packLists, packStrings } from './packedColumn.ts';

/** How each history column is packed, in file order: strings and lists of strings; other columns are not. */
const PACKERS = HISTORY_COLUMN_KINDS.map((kind) =>
  kind === 'string' ? packStrings : kind === 'string_list' ? packLists : undefined,
);

/**
 * Rows `from` to `to` of a row group's history columns (`HISTORY_COLUMN_NAMES`' order), as a row group
 * holds them while it fills: each string or list column packed ({@link PackedColumn}) where it can be
 * (every value ASCII), and every other column (numbers, and strings past ASCII) as an array of its own.
 */
export function packHistoryColumns(
  columns: readonly (readonly unknown[])[],
  from: number,
  to: number,
): (unknown[] | PackedColumn)[] {
  return columns.map((column, c) => PACKERS[c]?.(column, from, to) ?? column.slice(from, to));
}

import { describe, expect, it } from 'vitest';
import { historyColumnData } from '../../lib/archive/parquet/historyColumnData.ts';
import { HISTORY_COLUMN_NAMES } from '../../lib/archive/parquet/historySchema.ts';
import { packStrings } from '../../lib/archive/parquet/packedColumn.ts';
import { RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { edgeCaseRows } from './historyRows.ts';

describe('historyColumnData', () => {
  it('makes a column given as a function only when its data is read, so one column is whole at a time', () => {
    const builder = new RowChunkBuilder();
    for (const row of edgeCaseRows()) builder.push(row);
    const { columns } = builder.take();
    const made = new Map<string, number>();
    const sources = historyColumnData(
      columns.map((values, c) => () => {
        const name = HISTORY_COLUMN_NAMES[c] as string;
        made.set(name, (made.get(name) ?? 0) + 1);
        return values;
      }),
    );
    // Only the forced dictionaries are looked at before: one all null is left to the library's choice.
    const dictionaries = sources.filter((s) => s.encoding === 'RLE_DICTIONARY').map((s) => s.name);
    expect(dictionaries.length).toBeGreaterThan(0);
    expect([...made.keys()].sort()).toEqual([...dictionaries].sort());
    made.clear();
    const recordId = sources.find((s) => s.name === 'record_id');
    expect(recordId?.data).toBe(columns[HISTORY_COLUMN_NAMES.indexOf('record_id')]);
    expect([...made]).toEqual([['record_id', 1]]);
  });

  it('leaves a dictionary column that is all null to the library, packed or not', () => {
    const builder = new RowChunkBuilder();
    for (const row of edgeCaseRows()) builder.push(row);
    const { columns, rows } = builder.take();
    const hmac = HISTORY_COLUMN_NAMES.indexOf('token_hmac');
    const nulls = Array.from({ length: rows }, () => null);
    for (const held of [nulls, packStrings(nulls, 0, rows)]) {
      const group = columns.map((values, c) => (c === hmac ? held : values));
      const source = historyColumnData(group as Parameters<typeof historyColumnData>[0])[hmac];
      expect(source?.encoding).toBeUndefined();
    }
    expect(historyColumnData(columns)[hmac]?.encoding).toBe('RLE_DICTIONARY');
  });
});

import type { DatasetWriter } from '../commit/partitionCommitter.ts';
import { readStringColumn } from '../parquet/readHistoryParquet.ts';
import { writeActiveParquet } from './activeParquet.ts';
import type { ActiveRow } from './activeRow.ts';

/** `active/`: observation rows, deduped by `row_id` (a snapshot's rows are few: one file, in memory). */
export const activeWriter: DatasetWriter<ActiveRow> = {
  dataset: 'active',
  write: async (rows, localPath) => {
    const all: ActiveRow[] = [];
    for await (const r of rows) all.push(r);
    return writeActiveParquet(all, localPath);
  },
  readIds: (bytes) => readStringColumn(bytes, 'row_id'),
  idOf: (row) => row.row_id,
};

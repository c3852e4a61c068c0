import { readRecordIds } from '../parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import type { DatasetWriter } from './partitionCommitter.ts';

/** `history/`: archive rows, deduped by `record_id`. */
export function historyWriter(rowGroupSize: number): DatasetWriter<ArchiveRow> {
  return {
    dataset: 'history',
    write: (rows, localPath) => writeHistoryParquet(rows, localPath, { rowGroupSize }),
    readIds: readRecordIds,
  };
}

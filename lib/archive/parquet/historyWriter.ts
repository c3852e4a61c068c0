import type { StreamingDatasetWriter } from '../commit/partitionCommitter.ts';
import type { DraftRow } from '../records/archiveRow.ts';
import { HistoryParquetFile, type ParquetEncoder } from './historyParquetFile.ts';
import { addHexIdColumn, readHistoryFileRows, readStringColumn } from './readHistoryParquet.ts';
import { writeHistoryParquet } from './writeHistoryParquet.ts';

/**
 * `history/`: archive rows, deduped by `record_id`; files can be written row by row during a walk, from rows
 * whose `session_id` the encoder derives (`DraftRow`).
 */
export function historyWriter(
  rowGroupSize: number,
  encoder: ParquetEncoder = 'inline',
): StreamingDatasetWriter<DraftRow> {
  return {
    dataset: 'history',
    write: (rows, localPath) => writeHistoryParquet(rows, localPath, { rowGroupSize }),
    create: (localPath) => HistoryParquetFile.create(localPath, { rowGroupSize, encoder }),
    readIds: (bytes) => readStringColumn(bytes, 'record_id'),
    addIds: (source, into) => addHexIdColumn(source, 'record_id', into),
    idOf: (row) => row.record_id,
    readRows: readHistoryFileRows,
  };
}

import type { Day } from '../../foundation/index.ts';
import type { ArchiveRow } from './archiveRow.ts';
import { KeyedRecord, partitionOfMs, type ToArchiveRowOptions } from './keyedRecord.ts';
import type { HistoryRecord } from './schemas.ts';
import { toEpochMs } from './toEpochMs.ts';

/**
 * Maps a validated record to its Parquet row (see `KeyedRecord.row`). The ids are computed over the
 * normalised record with tokens as HMACs, whatever the policy. Throws when the record cannot be a row.
 */
export function toArchiveRow(record: HistoryRecord, opts: ToArchiveRowOptions): ArchiveRow {
  return new KeyedRecord(record, opts).row();
}

/** The `dt=` partition of a row or record: the UTC calendar day its session started. */
export function partitionOf(
  rowOrRecord: Pick<ArchiveRow, 'start_time'> | Pick<HistoryRecord, 'start_time'>,
): Day {
  const start = rowOrRecord.start_time;
  return partitionOfMs(start instanceof Date ? start.getTime() : toEpochMs(start));
}

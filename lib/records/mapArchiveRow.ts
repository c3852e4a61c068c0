import type { ArchiveRow } from './archiveRow.ts';
import type { HistoryRecord } from './schemas.ts';
import { type ToArchiveRowOptions, toArchiveRow } from './toArchiveRow.ts';

/** A record's archive row, or why a record valid by the schema cannot become one. */
export type MappedRow = { ok: true; row: ArchiveRow } | { ok: false; reason: string };

/**
 * The last check a record meets, after `validateHistoryRecord`: it must map to an archive row (its
 * instants and tokens must survive the mapping). One that does not is quarantined with this reason,
 * like any other bad record, instead of failing its walk.
 */
export function mapArchiveRow(record: HistoryRecord, opts: ToArchiveRowOptions): MappedRow {
  try {
    return { ok: true, row: toArchiveRow(record, opts) };
  } catch (error) {
    return { ok: false, reason: `cannot map to an archive row: ${(error as Error).message}` };
  }
}

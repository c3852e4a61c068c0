import type { KeyedRecord, KeyedResult } from '../records/keyedRecord.ts';
import { rawRecordId } from '../records/recordId.ts';
import type { HistoryPage, HistoryRecord, RejectedRecord } from '../records/schemas.ts';
import { loopTurns } from './loopTurns.ts';
import type { ServedIds } from './servedIds.ts';

export interface AbsorbOptions {
  /** Where records go (a walk's sink: it dedupes by `record_id`, and builds the rows it keeps). */
  sink: { add(record: KeyedRecord): undefined | Promise<void> };
  /** The record keyed for the sink (its row built only if the sink keeps it), or why it cannot be a row. */
  keyRecord: (record: HistoryRecord) => KeyedResult;
  /** Key of the quarantine ids. */
  tokenKey: Uint8Array;
}

/**
 * Takes one page's records into a walk: each valid record into the sink (which dedupes by `record_id`),
 * each invalid item (or one that cannot be mapped to a row) into `rejected` by its keyed raw id. Shared
 * by a whole-day walk and a walk of a page range, so both apply the same rules to what a page holds. With
 * `served`, each record's id (a quarantined item's raw id) is counted there too.
 */
export function pageAbsorber(
  options: AbsorbOptions,
  rejected: Map<string, RejectedRecord>,
): (page: HistoryPage, served?: ServedIds) => Promise<void> {
  const turn = loopTurns();
  return async (page, served) => {
    for (const r of page.content) {
      const mapped = options.keyRecord(r);
      if (!mapped.ok) {
        // Valid by the schema but not mappable to a row (judged in records/): quarantined like any other.
        const id = rawRecordId(r, options.tokenKey);
        rejected.set(id, { raw: r, reason: mapped.reason });
        served?.note(id);
        continue;
      }
      served?.note(mapped.keyed.id);
      // Let the event loop in now and then: a response that arrived meanwhile is read, and the next
      // request sent, at once rather than after the whole page (keeps `concurrency` requests in flight).
      const wait = turn(options.sink.add(mapped.keyed));
      if (wait) await wait;
    }
    for (const r of page.rejected) {
      const id = rawRecordId(r.raw, options.tokenKey);
      if (!rejected.has(id)) rejected.set(id, r);
      served?.note(id);
    }
  };
}

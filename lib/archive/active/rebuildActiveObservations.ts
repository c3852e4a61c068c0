import type { ActiveEvent, ActiveRow } from './activeRow.ts';
import type { ActiveObservation, ActiveObservations, ClosedSession } from './activeState.ts';
import { CLOSED_RETENTION_MS } from './diffSnapshot.ts';
import { toStoredFields } from './storedFields.ts';
import { contentHash } from './toObservedFields.ts';

const EVENT_ORDER: Record<ActiveEvent, number> = { seen: 0, changed: 1, gone: 2 };

/**
 * The state as the archive implies it: for each id its last row (by `observed_at`, then event order);
 * ids whose last row is `gone` are closed (remembered for `CLOSED_RETENTION_MS`, as the diff does). `seq` is the number of distinct rows of the id, so rows
 * derived after a rebuild get fresh ids. Rows may arrive in any order and repeat (deduped by `row_id`).
 */
export function rebuildActiveObservations(rows: Iterable<ActiveRow>): ActiveObservations {
  const byId = new Map<string, { last: ActiveRow; first: Date; rowIds: Set<string> }>();
  let latest: Date | undefined;
  for (const row of rows) {
    if (latest === undefined || row.observed_at > latest) latest = row.observed_at;
    const entry = byId.get(row.id);
    if (entry === undefined) {
      byId.set(row.id, { last: row, first: row.observed_at, rowIds: new Set([row.row_id]) });
      continue;
    }
    entry.rowIds.add(row.row_id);
    if (row.observed_at < entry.first) entry.first = row.observed_at;
    const t = row.observed_at.getTime() - entry.last.observed_at.getTime();
    if (t > 0 || (t === 0 && EVENT_ORDER[row.event] > EVENT_ORDER[entry.last.event])) entry.last = row;
  }
  const sessions: Record<string, ActiveObservation> = {};
  const closed: Record<string, ClosedSession> = {};
  for (const [id, { last, first, rowIds }] of byId) {
    if (last.event === 'gone') {
      const age = (latest?.getTime() ?? 0) - last.observed_at.getTime();
      if (age <= CLOSED_RETENTION_MS)
        closed[id] = { seq: rowIds.size, goneAt: last.observed_at.toISOString() };
      continue;
    }
    const { row_id: _r, observed_at: _o, event: _e, ...fields } = last;
    sessions[id] = {
      fields: toStoredFields(fields),
      hash: contentHash(fields),
      seq: rowIds.size,
      firstSeenAt: first.toISOString(),
      lastSeenAt: last.observed_at.toISOString(),
    };
  }
  return latest === undefined
    ? { sessions, closed }
    : { sessions, closed, lastSnapshotAt: latest.toISOString() };
}

import type { ActiveSession } from '../records/schemas.ts';
import type { ActiveEvent, ActiveRow, ActiveRowOptions, ObservedFields } from './activeRow.ts';
import { activeRowId } from './activeRowId.ts';
import type { ActiveObservation, ActiveObservations, ClosedSession, SnapshotGap } from './activeState.ts';
import { fromStoredFields, toStoredFields } from './storedFields.ts';
import { contentHash, toObservedFields } from './toObservedFields.ts';

export interface DiffSnapshotOptions extends ActiveRowOptions {
  /** The snapshot schedule; two snapshots more than twice this apart are a gap. */
  scheduleMs: number;
}

export interface DiffSnapshotResult {
  /** One row per change, in a stable order (by event, then id). */
  rows: ActiveRow[];
  /** The observations after this snapshot (store them once `rows` are committed). */
  next: ActiveObservations;
  /** Set when the previous snapshot is more than twice the schedule old. */
  gap?: SnapshotGap;
  /** Ids the list held more than once (the last occurrence counts). */
  duplicateIds: string[];
}

const EVENT_ORDER: Record<ActiveEvent, number> = { seen: 0, changed: 1, gone: 2 };

/**
 * How long a `gone` id is remembered. An id listed again within it continues its row sequence, so its
 * new `seen` row cannot share the `row_id` of its first one; after it, the two rows lie in different
 * `dt` partitions (over a day apart), where the commit's per-partition dedupe never compares them.
 */
export const CLOSED_RETENTION_MS = 86_400_000;

/**
 * Compares one snapshot of the active list with the last observation of each session: `seen` for an id
 * observed for the first time, `changed` when any observed field differs (every field counts, a
 * `lastUpdateTimestamp`-only move too), `gone` for an id the list no longer holds (the row repeats its
 * last observed fields). Pure: same inputs, same rows and row ids, which is what makes a re-run after
 * a crash harmless.
 */
export function diffSnapshot(
  previous: ActiveObservations,
  snapshot: readonly ActiveSession[],
  observedAt: Date,
  opts: DiffSnapshotOptions,
): DiffSnapshotResult {
  const at = observedAt.toISOString();
  const current = new Map<string, ObservedFields>();
  const duplicateIds = new Set<string>();
  for (const session of snapshot) {
    // Keyed by the id as its rows hold it (a lone surrogate kept as JSON text), the key a state rebuilt
    // from `active/` has, so a session whose id holds one is known after a state loss.
    const fields = toObservedFields(session, opts);
    if (current.has(fields.id)) duplicateIds.add(fields.id);
    current.set(fields.id, fields);
  }

  const rows: ActiveRow[] = [];
  const sessions: Record<string, ActiveObservation> = {};
  const row = (fields: ObservedFields, event: ActiveEvent, seq: number, hash: string): ActiveRow => ({
    row_id: activeRowId(fields.id, event, seq, hash),
    observed_at: new Date(observedAt.getTime()),
    event,
    ...fields,
  });

  for (const [id, fields] of current) {
    const hash = contentHash(fields);
    const last = previous.sessions[id];
    if (last === undefined) {
      const seq = previous.closed?.[id]?.seq ?? 0;
      rows.push(row(fields, 'seen', seq, hash));
      sessions[id] = { fields: toStoredFields(fields), hash, seq: seq + 1, firstSeenAt: at, lastSeenAt: at };
    } else if (last.hash !== hash) {
      rows.push(row(fields, 'changed', last.seq, hash));
      sessions[id] = { ...last, fields: toStoredFields(fields), hash, seq: last.seq + 1, lastSeenAt: at };
    } else {
      sessions[id] = { ...last, lastSeenAt: at };
    }
  }
  const closed: Record<string, ClosedSession> = {};
  for (const [id, tomb] of Object.entries(previous.closed ?? {})) {
    const kept = observedAt.getTime() - Date.parse(tomb.goneAt) <= CLOSED_RETENTION_MS;
    if (kept && !current.has(id)) closed[id] = tomb;
  }
  for (const [id, last] of Object.entries(previous.sessions)) {
    if (current.has(id)) continue;
    rows.push(row(fromStoredFields(last.fields), 'gone', last.seq, last.hash));
    closed[id] = { seq: last.seq + 1, goneAt: at };
  }
  rows.sort((a, b) => EVENT_ORDER[a.event] - EVENT_ORDER[b.event] || a.id.localeCompare(b.id));

  const gap = snapshotGap(previous.lastSnapshotAt, observedAt, opts.scheduleMs);
  return {
    rows,
    next: { sessions, closed, lastSnapshotAt: at },
    ...(gap === undefined ? {} : { gap }),
    duplicateIds: [...duplicateIds].sort(),
  };
}

/** The gap since the last snapshot, when it is longer than twice the schedule. */
export function snapshotGap(
  lastSnapshotAt: string | undefined,
  observedAt: Date,
  scheduleMs: number,
): SnapshotGap | undefined {
  if (lastSnapshotAt === undefined) return undefined;
  const ms = observedAt.getTime() - Date.parse(lastSnapshotAt);
  return ms > 2 * scheduleMs ? { from: lastSnapshotAt, to: observedAt.toISOString(), ms } : undefined;
}

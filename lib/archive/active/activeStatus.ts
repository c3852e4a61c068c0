import type { ActiveState, SnapshotGap } from './activeState.ts';
import { type LongSession, longSessions } from './longSessions.ts';

/** What `status` shows about live sessions. */
export interface ActiveStatus {
  /** Sessions open at the last snapshot. */
  open: number;
  lastSnapshotAt: string | null;
  /** The last snapshot is older than twice the schedule: snapshots have stopped or are failing. */
  stale: boolean;
  /** Open longer than (window − 2) days: history will never list them. */
  longSessions: LongSession[];
  gaps: SnapshotGap[];
  /** A snapshot's rows are stored but their commit is not confirmed (the next snapshot finishes it). */
  pendingRows: number;
}

/** The live-session part of `status`, from the state alone (no API call). */
export function activeStatus(
  state: ActiveState | undefined,
  now: Date,
  windowDays: number,
  scheduleMs = 5 * 60_000,
): ActiveStatus {
  if (state === undefined) {
    return { open: 0, lastSnapshotAt: null, stale: true, longSessions: [], gaps: [], pendingRows: 0 };
  }
  const last = state.lastSnapshotAt ?? null;
  return {
    open: Object.keys(state.sessions).length,
    lastSnapshotAt: last,
    stale: last === null || now.getTime() - Date.parse(last) > 2 * scheduleMs,
    longSessions: longSessions(state, now, windowDays),
    gaps: state.gaps,
    pendingRows: state.pending?.rows.length ?? 0,
  };
}

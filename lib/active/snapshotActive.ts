import type { Clock } from '../clock/clock.ts';
import { type Day, toDay } from '../clock/day.ts';
import type { Logger } from '../log/logger.ts';
import type { TokenPolicy } from '../records/archiveRow.ts';
import type { ActiveObservations, ActiveState, LiveStore, SnapshotGap } from '../state/stateStore.ts';
import type { RequestOptions, UpstreamApi } from '../upstream/upstreamApi.ts';
import { relieveHeap } from '../util/relieveHeap.ts';
import type { ActiveEvent, ActiveRow } from './activeRow.ts';
import { diffSnapshot } from './diffSnapshot.ts';
import { type LongSession, longSessions } from './longSessions.ts';
import { fromPendingRow, toPendingRow } from './storedFields.ts';

/** Most recent gaps kept in the state. */
export const MAX_STORED_GAPS = 100;
/** Default snapshot schedule (the stack's `rate(5 minutes)`). */
export const DEFAULT_SNAPSHOT_SCHEDULE_MS = 5 * 60_000;

export interface SnapshotActiveDeps {
  api: Pick<UpstreamApi, 'listActive'>;
  state: LiveStore;
  /**
   * Commits rows to `active/dt=<dt>/` exactly once: rows whose `row_id` the partition already holds
   * are dropped (the engine's committer in production; a file sink in tests).
   */
  commitRows(dt: Day, rows: readonly ActiveRow[]): Promise<unknown>;
  /** When the state has no active item yet: the observations the archive implies (last row per id). */
  rebuildFromArchive?: () => Promise<ActiveObservations | undefined>;
  clock: Clock;
  logger: Logger;
  tokenKey: Uint8Array;
  /** Called with the stored observations after each snapshot (the live detection rules). */
  afterSnapshot?: (observations: ActiveObservations, observedAt: Date) => Promise<void>;
}

export interface SnapshotActiveOptions {
  tokenPolicy: TokenPolicy;
  windowDays: number;
  scheduleMs?: number;
  signal?: AbortSignal;
}

export interface SnapshotActiveResult {
  observedAt: string;
  /** Sessions the active list held. */
  listed: number;
  /** Rows derived, by event (the commit may have dropped some already written by a crashed run). */
  events: Record<ActiveEvent, number>;
  gap?: SnapshotGap;
  longSessions: LongSession[];
  duplicateIds: string[];
  /** True when the observations were rebuilt from `active/` because the state had none. */
  rebuilt: boolean;
}

/**
 * One snapshot, exactly once: read the last observations (finishing a previous run's pending commit),
 * list the active sessions (one request), diff, store the new observations together with the rows as
 * `pending`, commit the rows, then clear `pending`. Every step can die: before the first state write
 * nothing happened; after it the next run re-commits the same rows and the commit drops the `row_id`s
 * it already holds. (Committing first and storing the state after, as first drafted, loses a `gone` when
 * a session changes back or ends between the crashed run and the next one.) A concurrent snapshot makes
 * the first state write fail with `CONFLICT` (retryable) before it has committed anything.
 */
export async function snapshotActive(
  deps: SnapshotActiveDeps,
  opts: SnapshotActiveOptions,
): Promise<SnapshotActiveResult> {
  const scheduleMs = opts.scheduleMs ?? DEFAULT_SNAPSHOT_SCHEDULE_MS;
  let stored = await deps.state.getActiveState();
  let rebuilt = false;
  if (stored === undefined && deps.rebuildFromArchive !== undefined) {
    const fromArchive = await deps.rebuildFromArchive();
    if (fromArchive !== undefined) {
      stored = { ...fromArchive, gaps: [], version: 0 };
      rebuilt = true;
      deps.logger.info('active state rebuilt from the archive', {
        sessions: Object.keys(fromArchive.sessions).length,
      });
    }
  }
  const previous: ActiveState = stored ?? { sessions: {}, gaps: [], version: 0 };
  if (previous.pending !== undefined) {
    // The last run stored its rows but may have died before (or while) committing them.
    const { dt, rows } = previous.pending;
    await deps.commitRows(
      dt,
      rows.map((r) => fromPendingRow(r, previous.sessions)),
    );
    deps.logger.info('committed the rows of an unfinished snapshot', { dt, rows: rows.length });
  }

  const request: RequestOptions = opts.signal === undefined ? {} : { signal: opts.signal };
  const snapshot = await deps.api.listActive(request);
  const observedAt = deps.clock.now();
  const diff = diffSnapshot(previous, snapshot, observedAt, {
    tokenPolicy: opts.tokenPolicy,
    tokenKey: deps.tokenKey,
    scheduleMs,
  });
  // A busy account lists thousands of open tunnels: the parsed list is garbage from here on, and the
  // state written next is several times its size (JSON, gzip, chunk requests). Each step starts from a
  // collected heap, so their peaks do not stack (relieveHeap does nothing when little is held).
  relieveHeap();
  if (diff.gap !== undefined) {
    deps.logger.warn('gap between active snapshots', { ...diff.gap, scheduleMs });
  }
  if (diff.duplicateIds.length > 0) {
    deps.logger.warn('active list repeats session ids', { ids: diff.duplicateIds });
  }

  const gaps = diff.gap === undefined ? previous.gaps : [...previous.gaps, diff.gap].slice(-MAX_STORED_GAPS);
  const { pending: _done, ...base } = previous;
  let version = previous.version;
  if (diff.rows.length > 0) {
    // Write-ahead: the rows go into the state first, so a crash before (or during) the commit is
    // finished by the next run, even if the session has changed back or ended by then.
    const dt = toDay(observedAt);
    const ahead = await deps.state.putActiveState({
      ...base,
      ...diff.next,
      gaps,
      pending: { dt, rows: diff.rows.map(toPendingRow) },
      version,
    });
    version = ahead.version;
    relieveHeap();
    await deps.commitRows(dt, diff.rows);
    relieveHeap();
  }
  await deps.state.putActiveState({ ...base, ...diff.next, gaps, version });
  await deps.afterSnapshot?.(diff.next, observedAt);

  const events: Record<ActiveEvent, number> = { seen: 0, changed: 0, gone: 0 };
  for (const row of diff.rows) events[row.event] += 1;
  const long = longSessions(diff.next, observedAt, opts.windowDays);
  if (long.length > 0) {
    deps.logger.warn('long sessions: open longer than history can show', {
      count: long.length,
      sessions: long.map((s) => ({ id: s.id, creationTime: s.creationTime, ageDays: s.ageDays })),
    });
  }
  deps.logger.info('active snapshot', {
    observedAt: observedAt.toISOString(),
    listed: snapshot.length,
    ...events,
  });
  return {
    observedAt: observedAt.toISOString(),
    listed: snapshot.length,
    events,
    ...(diff.gap === undefined ? {} : { gap: diff.gap }),
    longSessions: long,
    duplicateIds: diff.duplicateIds,
    rebuilt,
  };
}

import { type Clock, type Day, type Logger, relieveHeap, toDay } from '../../foundation/index.ts';
import type { TokenPolicy } from '../records/archiveRow.ts';
import type { ActiveSession } from '../records/schemas.ts';
import type { LiveStore } from '../state/statePorts.ts';
import type { RequestOptions, UpstreamApi } from '../upstream/upstreamApi.ts';
import type { ActiveEvent, ActiveRow } from './activeRow.ts';
import type {
  ActiveObservations,
  ActiveState,
  PendingActiveRow,
  PendingActiveRows,
  SnapshotGap,
} from './activeState.ts';
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
   * are dropped (the engine's committer in production; a file sink in tests). With `batch`, the rows
   * are one batch by that name, which never gains rows once a commit of it was tried: a committer may
   * skip a batch its partition already lists instead of reading the partition's ids.
   */
  commitRows(dt: Day, rows: readonly ActiveRow[], batch?: string): Promise<unknown>;
  /** When the state has no active item yet: the observations the archive implies (last row per id). */
  rebuildFromArchive?: () => Promise<ActiveObservations | undefined>;
  clock: Clock;
  logger: Logger;
  tokenKey: Uint8Array;
  /** Called with the stored observations after each snapshot (the live detection rules). */
  afterSnapshot?: (observations: ActiveObservations, observedAt: Date) => Promise<void>;
  /**
   * The active list, already asked for (an archiving run sends it beside its preflight), with the time
   * it arrived: the snapshot uses it instead of asking `api`, and observes the sessions at that time.
   */
  listed?: Promise<ListedActive>;
}

/** An answer of the active list and when it arrived. */
export interface ListedActive {
  sessions: ActiveSession[];
  at: Date;
}

/** Asks for the active list now; the answer comes with the time it arrived (see `SnapshotActiveDeps.listed`). */
export function listActiveNow(
  api: Pick<UpstreamApi, 'listActive'>,
  clock: Clock,
  request: RequestOptions = {},
): Promise<ListedActive> {
  return api.listActive(request).then((sessions) => ({ sessions, at: clock.now() }));
}

export interface SnapshotActiveOptions {
  tokenPolicy: TokenPolicy;
  windowDays: number;
  scheduleMs?: number;
  /**
   * Rows are kept in the state and committed once the oldest of them is this old (or when the UTC day
   * turns), as one file: `active/` gets about a file an hour, whatever the schedule. 0 (the default, and
   * what an archiving run uses) commits every snapshot's rows, with those held before.
   */
  commitEveryMs?: number;
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
 * One snapshot, exactly once: read the last observations (finishing a previous run's sealed commit),
 * list the active sessions (one request), diff, and store the new observations together with the rows
 * not committed yet as `pending` (the held ones first). When the batch is due (`commitEveryMs`), it is
 * stored sealed, committed as one batch, and `pending` cleared. Every step can die: before the state write
 * nothing happened; after it the next run finds the rows (held, or sealed: then it commits them again, and
 * the commit skips a batch it already holds). A sealed batch never gains rows, and a batch never spans two
 * UTC days. (Committing first and storing the state after, as first drafted, loses a `gone` when a session
 * changes back or ends between the crashed run and the next one.) A concurrent snapshot makes the state
 * write fail with `CONFLICT` (retryable) before it has committed anything.
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
  let held = previous.pending;
  if (held !== undefined && (held.sealed === true || held.batch === undefined)) {
    // The last run sealed these rows (or an older release stored them) but may have died before (or while)
    // committing them.
    await commitPending(deps, held, previous.sessions);
    held = undefined;
  }

  const request: RequestOptions = opts.signal === undefined ? {} : { signal: opts.signal };
  const { sessions: snapshot, at: observedAt } = await (deps.listed ??
    listActiveNow(deps.api, deps.clock, request));
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
  const dt = toDay(observedAt);
  if (held !== undefined && held.dt !== dt) {
    // A batch never spans two days: the held rows of an earlier day are committed by themselves.
    await commitPending(deps, held, previous.sessions);
    held = undefined;
  }

  const gaps = diff.gap === undefined ? previous.gaps : [...previous.gaps, diff.gap].slice(-MAX_STORED_GAPS);
  const { pending: _done, ...base } = previous;
  const next = { ...base, ...diff.next, gaps };
  const rows = [
    ...(held?.rows ?? []).map((r) => keepFields(r, previous.sessions, diff.next.sessions)),
    ...diff.rows.map(toPendingRow),
  ];
  const first = rows[0];
  if (first === undefined) {
    await deps.state.putActiveState({ ...next, version: previous.version });
  } else {
    const commitEveryMs = opts.commitEveryMs ?? 0;
    const due = observedAt.getTime() - Date.parse(first.observed_at) >= commitEveryMs;
    const pending: PendingActiveRows = {
      dt,
      rows,
      batch: held?.batch ?? first.row_id,
      ...(due ? { sealed: true } : {}),
    };
    // Write-ahead: the rows go into the state first, so a crash before (or during) the commit is
    // finished by the next run, even if the session has changed back or ended by then.
    const ahead = await deps.state.putActiveState({ ...next, pending, version: previous.version });
    if (due) {
      relieveHeap();
      await commitPending(deps, pending, diff.next.sessions);
      relieveHeap();
      await deps.state.putActiveState({ ...next, version: ahead.version });
    }
  }
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

async function commitPending(
  deps: SnapshotActiveDeps,
  pending: PendingActiveRows,
  sessions: ActiveState['sessions'],
): Promise<void> {
  const rows = pending.rows.map((r) => fromPendingRow(r, sessions));
  await deps.commitRows(pending.dt, rows, pending.batch);
  deps.logger.debug('committed held active rows', { dt: pending.dt, rows: rows.length });
}

/**
 * A held row without fields of its own reads them from its session in the same item: when this snapshot
 * changes (or closes) that session, the row keeps the fields it was observed with.
 */
function keepFields(
  row: PendingActiveRow,
  before: ActiveState['sessions'],
  after: ActiveState['sessions'],
): PendingActiveRow {
  if (row.fields !== undefined) return row;
  const was = before[row.id];
  if (was === undefined || after[row.id]?.hash === was.hash) return row;
  return { ...row, fields: was.fields };
}

import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import {
  ArchiverError,
  boundHeapGrowth,
  type Clock,
  type Day,
  type DeadlineBudget,
  makeRunTmpDir,
  relieveHeap,
  removeRunFolder,
  toDay,
  unboundedBudget,
} from '../../foundation/index.ts';
import { committerRowSink } from '../active/committerRowSink.ts';
import { rebuildActiveFromArchive } from '../active/rebuildActiveFromArchive.ts';
import { type ListedActive, listActiveNow, snapshotActive } from '../active/snapshotActive.ts';
import { leaseOwner } from '../commit/leaseOwner.ts';
import { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { publishScopeOf, publishStaged } from '../commit/publishStaged.ts';
import { sweepStaging } from '../commit/sweepStaging.ts';
import { type PlannedDay, windowStartOf } from '../days/planDays.ts';
import type { ChainHead } from '../digest/digestState.ts';
import { checkArchiveKeys } from '../keys/checkArchiveKeys.ts';
import { rebuildStateFromArchive } from '../recover/rebuildStateFromArchive.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { DayState } from '../state/dayState.ts';
import type { Lease } from '../state/lease.ts';
import { PrefetchedPages } from '../upstream/prefetchedPages.ts';
import { firstPassPages, resumedPassAhead } from '../walk/walkDay.ts';
import { establishMeta } from './establishMeta.ts';
import { planRun, requestedDays } from './planRun.ts';
import { preflight } from './preflight.ts';
import { reconcileDue } from './reconcileDue.ts';
import { type ReconcileScope, reconcileSince, sweepInScope } from './reconcileSince.ts';
import type { ActiveSummary, ArchiveDeps, ArchiveOptions } from './runTypes.ts';

/** What a run found and decided before its days: what `finishRun` sums up beside the days' outcome. */
export interface RunFacts {
  runId: string;
  started: Date;
  today: Day;
  /** What publishing earlier runs' committed files found. */
  pending: Awaited<ReturnType<typeof publishStaged>>;
  rebuilt: Awaited<ReturnType<typeof rebuildStateFromArchive>>;
  /** Whether this run reconciles the state with the archive (see `reconcileDue`). */
  reconcile: boolean;
  /** A weekly reconciliation's scope when it works from the chain since the last one (`reconcileSince`). */
  since?: ReconcileScope;
  /** The chain head the state recorded, checked against the archive: a steady run's digest follows it. */
  head?: ChainHead;
}

/** The run's plan: what `archiveDueDays` works through. */
export interface RunPlan {
  meta: ArchiveMeta;
  /** The effective window (configured, or learned from the server). */
  windowDays: number;
  /** Known day states by day; the day loop updates it. */
  days: Map<Day, DayState>;
  due: PlannedDay[];
  /** Days that left the window unsealed, found while planning. */
  gaps: Day[];
}

/** What a run holds while its days go on, and gives back at its end. */
export interface RunHold {
  budget: DeadlineBudget;
  committer: PartitionCommitter;
  /** The API the days use: the run's first pages may be under way in it already. */
  api: PrefetchedPages;
  tmpDir: string;
  /** The active snapshot, under way beside the days; it never rejects (a failure is in its summary). */
  active: Promise<ActiveSummary | undefined>;
  /** Extends the lease (after every day). */
  renewLease(): Promise<void>;
  /** Releases the lease and removes the run's temp folder; never throws. */
  close(): Promise<void>;
}

/** A run made ready for its days: lease held, state rebuilt, days planned, committer open. */
export interface PreparedRun extends RunFacts, RunPlan, RunHold {}

/**
 * Open sessions up to which the run's active snapshot goes on beside the first days; a bigger list is
 * snapshotted before them (20,000 open tunnels added 13–20 MiB to a backfill's peak RSS beside a walk).
 */
export const SNAPSHOT_BESIDE_DAYS_MAX = 2_000;

/**
 * Everything before the days: publish what earlier runs committed (no API needed), check the key and
 * plan, record the archive's first window, refuse foreign keys, take the lease, put back state the
 * archive holds, plan the due days (recording new gaps), sweep old staging and snapshot the active list.
 * On failure after the lease is taken, the lease is released before the error leaves.
 */
export async function prepareRun(deps: ArchiveDeps, options: ArchiveOptions): Promise<PreparedRun> {
  const { api, state, clock } = deps;
  const runId = deps.runId ?? randomUUID().slice(0, 8);
  const budget = options.budget ?? unboundedBudget(clock);
  const started = clock.now();
  const today = toDay(started);
  const configuredStart = windowStartOf(today, options.windowDays);
  for (const d of options.onlyDays ?? []) {
    if (d < configuredStart || d > today) {
      throw new ArchiverError(
        'OUTSIDE_WINDOW',
        `Backfill day ${d} is outside the ${options.windowDays}-day window ${configuredStart}..${today}`,
      );
    }
  }
  // The heap's bound (and its first, concurrent collection, and the V8 context it takes to reach the
  // collector) is set before any request goes out, while the heap is small: set by the first bulk write,
  // it was a synchronous stretch of the walk's first second, with pages in flight.
  boundHeapGrowth();
  // The preflight's request goes out now, beside the state reads and the publishing below (neither needs
  // the API, and neither waits for it); it is awaited before anything new is written.
  const preflighted = preflight(api, today, budget.signal());
  preflighted.catch(() => undefined);
  // So does the active list's (the snapshot is taken from it later, at the time it arrived): the run's
  // first two round trips overlap instead of adding up. A failed list fails only the snapshot.
  const signal = budget.signal();
  const listed =
    options.snapshotActive === false ? undefined : listActiveNow(api, clock, signal ? { signal } : {});
  listed?.catch(() => undefined);
  // A steady run trusts the state (its chain head matches the archive's) and works from what it noted;
  // otherwise, and once a week, it reconciles the state with the whole archive.
  const known = await state.getMeta();
  // And, when the run's first day is known without planning, its first pages: their round trip hides
  // under the preflight's and the lease's instead of following them (`PrefetchedPages`).
  const pagesAhead = new PrefetchedPages(api);
  const firstKnown = options.onlyDays
    ? requestedDays(options.onlyDays)[0]
    : known === undefined
      ? configuredStart
      : undefined;
  const prefetched = prefetchFirstDay(
    deps,
    options,
    pagesAhead,
    firstKnown,
    signal,
    aheadWhile(clock, budget),
  );
  let lease: Lease | undefined;
  let reconcile: boolean;
  let since: ReconcileScope | undefined;
  let pending: RunFacts['pending'];
  let archiveMeta: ArchiveMeta;
  try {
    reconcile = options.reconcile === true || (await reconcileDue(deps, known, started));
    // A weekly one works from the chain since the last one, when the state matches the archive; the first
    // one, a forced one and one after a mismatch read everything.
    since =
      reconcile && options.reconcile !== true
        ? await reconcileSince(deps, known, today, options.windowDays)
        : undefined;
    if (since)
      deps.logger.info('reconciling from the chain since the last reconciliation', { from: since.from });
    // Committed files are published first: this needs no API, so no upstream trouble can hold them back.
    pending = await publishStaged(deps, publishScopeOf(reconcile, since, known?.pendingDigest ?? []));
    await prefetched;
    await preflighted;
    // The archive's promise starts with its first run: recorded before anything else can fail, so the
    // days of that first window are ours (a gap if never archived), whatever happens to this run.
    archiveMeta = await establishMeta(deps, started, configuredStart);
    // Keys other than the archive's would re-archive everything under new ids: refused before any new data.
    await checkArchiveKeys(deps.objects, deps);
    lease = await state.acquireLease(leaseOwner(runId), started, options.leaseTtlMs, deps.isLeaseHolderDead);
  } catch (error) {
    await pagesAhead.discard();
    throw error;
  }
  if (!lease) {
    await pagesAhead.discard();
    throw new ArchiverError(
      'LEASE_HELD',
      'Another archiver run holds the lease; this run did nothing and exits. It resumes on the next schedule.',
    );
  }
  let held: Lease = lease;
  let tmpDir: string | undefined;
  const close = async (): Promise<void> => {
    await pagesAhead.discard();
    await state
      .releaseLease(held)
      .catch((e: unknown) => deps.logger.warn('could not release the lease', { error: String(e) }));
    if (tmpDir) await removeRunFolder(tmpDir);
  };
  try {
    tmpDir = (await makeRunTmpDir(options.tmpDir ?? tmpdir(), runId, deps.incarnationLiveness)).dir;
    // State is a cache of the archive: what the archive holds and the state lacks is put back first, so a
    // lost state table never makes a run write a record twice.
    const rebuilt = reconcile
      ? await rebuildStateFromArchive({ objects: deps.objects, state, logger: deps.logger, clock }, since)
      : { partitions: [], files: 0, rows: 0, undigested: 0, foreign: [] };
    const windowDays = Math.min(options.windowDays, archiveMeta.learnedWindowDays ?? options.windowDays);
    const { days, due, gaps } = await planRun(
      deps,
      options,
      today,
      windowDays,
      archiveMeta,
      since ? since.from : reconcile,
    );
    if (since) await sweepInScope(deps, since, started);
    else if (reconcile) await sweepStaging(deps, started);
    const committer = new PartitionCommitter({ ...deps, runId, fence: lease.fence, tmpDir });
    // The snapshot goes on beside the days (its rows go to `active/`, theirs to `history/`): the first
    // day's requests need not wait for its state write and its commit. A big list is snapshotted first,
    // so that its memory (parsed list, diff, state, rows) does not stack on the first walk's.
    const size = await listed?.then(
      (l) => l.sessions.length,
      () => 0,
    );
    const snapshot =
      listed === undefined ? Promise.resolve(undefined) : snapshotInRun(deps, options, committer, listed);
    const active = (size ?? 0) > SNAPSHOT_BESIDE_DAYS_MAX ? Promise.resolve(await snapshot) : snapshot;
    return {
      runId,
      started,
      today,
      budget,
      pending,
      rebuilt,
      reconcile,
      ...(since ? { since } : {}),
      // A steady run's digest, and a weekly reconciliation's (the state matches the archive), follow it.
      ...((!reconcile || since) && known?.chainHead ? { head: known.chainHead } : {}),
      meta: archiveMeta,
      windowDays,
      days,
      due,
      gaps,
      committer,
      api: pagesAhead,
      tmpDir,
      active,
      renewLease: async () => {
        held = await state.renewLease(held, clock.now(), options.leaseTtlMs);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * While pages sent ahead of a resumed walk may go on being sent: until half of the run's time to its stop
 * has passed. Only the walk absorbs them, so it must begin with time left to; a run with no deadline sends
 * them all.
 */
function aheadWhile(clock: Clock, budget: DeadlineBudget): () => boolean {
  const stop = budget.stopAt?.getTime();
  if (stop === undefined) return () => true;
  const halfway = (clock.now().getTime() + stop) / 2;
  return () => clock.now().getTime() < halfway;
}

/**
 * Sends the first pages of the run's first day before the run holds its lease (beside its preflight),
 * when that day is known without planning: the earliest of the days asked for, or, on an archive's first
 * run, the oldest day of the window (a first plan starts there). A steady run's first day comes from the
 * day states, which are read once, under the lease: nothing is sent ahead then (a second read of the
 * window's states would cost every run, quiet ones included, more than it saves). One day state is read:
 * a walk that resumes an earlier run's pass is sent its next pages at the pass's size, `pageConcurrency` at
 * a time, each page's exchange sending the next until the walk asks for a page not sent ahead (`resumedPassAhead`:
 * up to `RESUMED_ROWS_AHEAD` rows), so the requests go on while the run takes its lease and plans, and while
 * the walk takes the pages that arrived meanwhile; otherwise the
 * last scan's total decides page 1, as in the walk (`firstPassPages`). When the plan under the lease starts
 * with another day (state the archive gave back), or the lease is held by another run, the pages are
 * dropped: for a fresh pass at most two requests, for a resumed one those sent until then. Never throws.
 */
async function prefetchFirstDay(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  ahead: PrefetchedPages,
  first: Day | undefined,
  signal: AbortSignal | undefined,
  sendWhile: () => boolean,
): Promise<void> {
  if (first === undefined) return;
  try {
    const previous = await deps.state.getDay(first);
    const resume = previous?.walk;
    if (resume) {
      const pages = resumedPassAhead(resume, {
        concurrency: options.pageConcurrency,
        maxPagesPerDay: options.maxPagesPerDay,
      });
      ahead.prefetchPass(first, pages, resume.size, options.pageConcurrency, {
        ...(signal ? { signal } : {}),
        sendWhile,
      });
      return;
    }
    const pages = firstPassPages({
      pageSize: options.pageSize,
      concurrency: options.pageConcurrency,
      ...(previous?.totalElements === undefined ? {} : { expectedTotal: previous.totalElements }),
    });
    for (const page of pages) ahead.prefetch(first, page, options.pageSize, signal ? { signal } : {});
  } catch (error) {
    deps.logger.debug('could not send the first pages ahead; the walk sends them', { error: String(error) });
  }
}

/**
 * Every archiving run also snapshots the active list (one request), through the same committer. A failed
 * snapshot is logged and reported in the summary; it never fails the history run.
 */
async function snapshotInRun(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  committer: PartitionCommitter,
  listed: Promise<ListedActive>,
): Promise<ActiveSummary> {
  try {
    const r = await snapshotActive(
      {
        api: deps.api,
        listed,
        state: deps.state,
        commitRows: committerRowSink(committer),
        rebuildFromArchive: () => rebuildActiveFromArchive(deps.objects),
        clock: deps.clock,
        // In a history run the snapshot's findings go to the summary (`active`); its lines are debug.
        logger: { ...deps.logger, info: deps.logger.debug, warn: deps.logger.debug },
        tokenKey: deps.tokenKey,
      },
      { tokenPolicy: options.tokenPolicy, windowDays: options.windowDays },
    );
    return {
      listed: r.listed,
      rows: r.events.seen + r.events.changed + r.events.gone,
      longSessions: r.longSessions.length,
    };
  } catch (error) {
    deps.logger.warn('active snapshot failed; the history run goes on', {
      code: ArchiverError.is(error) ? error.code : 'INTERNAL',
      error: error instanceof Error ? error.message : String(error),
    });
    return {
      listed: 0,
      rows: 0,
      longSessions: 0,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    // A big active list (its JSON, state and rows) is garbage now: not to be carried into the first walk.
    relieveHeap();
  }
}

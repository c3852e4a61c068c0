import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { committerRowSink } from '../active/committerRowSink.ts';
import { rebuildActiveFromArchive } from '../active/readActiveArchive.ts';
import { snapshotActive } from '../active/snapshotActive.ts';
import { type Day, daysBetween, toDay } from '../clock/day.ts';
import { leaseOwner } from '../commit/leaseOwner.ts';
import { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { publishAllPending } from '../commit/publishAllPending.ts';
import { sweepStaging } from '../commit/sweepStaging.ts';
import { appendDigest } from '../digest/appendDigest.ts';
import { ArchiverError, type ArchiverErrorCode } from '../errors/archiverError.ts';
import { checkArchiveKeys } from '../keys/checkArchiveKeys.ts';
import type { ArchiveMeta, Lease } from '../state/stateStore.ts';
import { relieveHeap } from '../util/relieveHeap.ts';
import { makeRunTmpDir } from '../util/runTmpDir.ts';
import { archiveDueDays } from './archiveDueDays.ts';
import { deadlineSignal } from './deadlineSignal.ts';
import { blankDay, gapDayState } from './nextDayState.ts';
import { daysAtRisk, type PlannedDay, planDays, windowStartOf } from './planDays.ts';
import { preflight } from './preflight.ts';
import { putDayMerging } from './putDayMerging.ts';
import { rebuildStateFromArchive } from './rebuildStateFromArchive.ts';
import type { ActiveSummary, ArchiveDeps, ArchiveOptions, DayResult, RunSummary } from './runTypes.ts';

/**
 * One archiving run: publish what earlier runs committed, plan the due days, walk each, append what is new
 * exactly once, and record progress after every day so a killed run loses nothing and a later run resumes.
 * A day that fails is recorded in its own state and the run goes on; a day the server no longer answers
 * for becomes a gap and teaches the planner the real window; a walk the deadline cuts short commits what it
 * has. One writer at a time (lease); stops starting new days before `options.deadline`.
 */
export async function runArchive(deps: ArchiveDeps, options: ArchiveOptions): Promise<RunSummary> {
  const { api, state, clock, logger } = deps;
  const runId = deps.runId ?? randomUUID().slice(0, 8);
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
  // Committed files are published first: this needs no API, so no upstream trouble can hold them back.
  const pending = await publishAllPending(deps);
  await preflight(api, today, deadlineSignal(deps, options));
  // The archive's promise starts with its first run: recorded before anything else can fail, so the days
  // of that first window are ours (a gap if never archived), whatever happens to this run.
  const archiveMeta = await establishMeta(deps, started, configuredStart);
  // Keys other than the archive's would re-archive everything under new ids: refused before any new data.
  await checkArchiveKeys(deps.objects, deps);

  const lease = await state.acquireLease(
    leaseOwner(runId),
    started,
    options.leaseTtlMs,
    deps.isLeaseHolderDead,
  );
  if (!lease) {
    throw new ArchiverError(
      'LEASE_HELD',
      'Another archiver run holds the lease; this run did nothing and exits. It resumes on the next schedule.',
    );
  }
  let tmpDir: string | undefined;
  let held: Lease = lease;
  try {
    tmpDir = (await makeRunTmpDir(options.tmpDir ?? tmpdir(), runId)).dir;
    // State is a cache of the archive: what the archive holds and the state lacks is put back first, so a
    // lost state table never makes a run write a record twice.
    const rebuilt = await rebuildStateFromArchive({ objects: deps.objects, state, logger, clock });
    let meta = archiveMeta;
    const windowDays = Math.min(options.windowDays, meta.learnedWindowDays ?? options.windowDays);
    const days = new Map((await state.listDays()).map((d) => [d.day, d] as const));
    const plan = planDays({
      today,
      windowDays,
      rescanAges: options.rescanAges,
      days,
      firstWindowStart: meta.firstWindowStart,
    });
    for (const day of plan.newGaps) {
      const s = await putDayMerging(
        deps,
        gapDayState(days.get(day) ?? blankDay(day), 'left the window unsealed'),
      );
      days.set(day, s);
      logger.error('day left the window before it was sealed: late records may be lost', {
        day,
        code: 'GAP' satisfies ArchiverErrorCode,
      });
    }
    const gaps = [...plan.newGaps];
    const due: PlannedDay[] = options.onlyDays
      ? [...new Set(options.onlyDays)]
          .sort()
          .map((day) => ({ day, age: daysBetween(day, today), reason: 'requested' as const }))
      : plan.due;
    await sweepStaging(deps, started);

    const committer = new PartitionCommitter({ ...deps, runId, fence: lease.fence, tmpDir });
    const active =
      options.snapshotActive === false ? undefined : await snapshotInRun(deps, options, committer);
    const outcome = await archiveDueDays({
      deps,
      options,
      due,
      days,
      windowDays,
      committer,
      tmpDir,
      meta,
      renewLease: async () => {
        held = await state.renewLease(held, clock.now(), options.leaseTtlMs);
      },
    });
    meta = outcome.meta;
    gaps.push(...outcome.gaps);
    const { results, failedDays, deferredDays, stoppedByDeadline } = outcome;

    const learned = Math.min(windowDays, meta.learnedWindowDays ?? windowDays);
    const digest = await appendDigestSafely(deps, runId, results);
    const finished = clock.now();
    const ok = !stoppedByDeadline && failedDays.length === 0;
    await putMetaSafely(deps, finished, ok, digest);
    const summary: RunSummary = {
      runId,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      today,
      daysPlanned: due.length,
      daysScanned: results.filter((r) => !r.interrupted).length,
      daysDeferred: deferredDays.length,
      recordsNew: sum(results, (r) => r.newRecords),
      recordsSeen: sum(results, (r) => r.distinctSeen),
      quarantined: sum(results, (r) => r.quarantined),
      files: sum(results, (r) => r.files),
      bytes: sum(results, (r) => r.bytes),
      shortfalls: results.filter((r) => r.shortfall > 0).map((r) => ({ day: r.day, shortfall: r.shortfall })),
      gaps,
      failedDays,
      deferredDays,
      brokenPartitions: pending.broken,
      oldestUnpublishedHours: pending.oldestUnpublishedHours,
      ...(learned < options.windowDays ? { learnedWindowDays: learned } : {}),
      atRisk: daysAtRisk(today, learned, days),
      ...(active ? { active } : {}),
      ...(digest ? { digest } : {}),
      ...(rebuilt.files > 0
        ? { rebuilt: { partitions: rebuilt.partitions.length, files: rebuilt.files, rows: rebuilt.rows } }
        : {}),
      ...(rebuilt.foreign.length > 0 ? { foreignFiles: rebuilt.foreign } : {}),
      stoppedByDeadline,
      days: results,
    };
    return summary;
  } finally {
    await state
      .releaseLease(held)
      .catch((e: unknown) => logger.warn('could not release the lease', { error: String(e) }));
    if (tmpDir) await rm(tmpDir, { recursive: true, force: true });
  }
}

/**
 * Every run, even one that added nothing, appends a digest: the files published since the previous one and
 * the days this run scanned (when, and whether completely). A failure is logged; the next run's digest
 * lists these files, since it lists whatever no digest lists yet.
 */
async function appendDigestSafely(
  deps: ArchiveDeps,
  runId: string,
  results: readonly DayResult[],
): Promise<RunSummary['digest']> {
  try {
    const scans = results
      .filter((r) => !r.interrupted)
      .map((r) => ({ day: r.day, scannedAt: r.scannedAt, complete: r.complete && r.shortfall === 0 }));
    const d = await appendDigest(deps, { runId, scans });
    // The head also leaves in the summary (the Lambda's `run finished` log line and the ChainHeadSeq
    // metric; the CLI's printed summary): records of it that a writer of the bucket cannot rewind.
    deps.logger.debug('digest chain head', { seq: d.seq, sha256: d.sha256, key: d.key });
    return { key: d.key, files: d.files, seq: d.seq, sha256: d.sha256, createdAt: d.createdAt };
  } catch (error) {
    deps.logger.error('could not append the digest; the next run lists these files', {
      code: ArchiverError.is(error) ? error.code : 'INTERNAL',
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
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
): Promise<ActiveSummary> {
  try {
    const r = await snapshotActive(
      {
        api: deps.api,
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

async function establishMeta(deps: ArchiveDeps, started: Date, windowStart: Day): Promise<ArchiveMeta> {
  const existing = await deps.state.getMeta();
  if (existing) return existing;
  try {
    return await deps.state.putMeta({
      firstRunAt: started.toISOString(),
      firstWindowStart: windowStart,
      version: 0,
    });
  } catch (error) {
    // A lost response or a racing first run: whoever wrote it, it is there now.
    const stored = await deps.state.getMeta();
    if (stored) return stored;
    throw error;
  }
}

async function putMetaSafely(
  deps: ArchiveDeps,
  at: Date,
  success: boolean,
  digest: RunSummary['digest'],
): Promise<void> {
  try {
    const fresh = await deps.state.getMeta();
    if (!fresh) return;
    // The head only moves forward: a slower concurrent run never records an older head over a newer one.
    const head =
      digest && (fresh.chainHead?.seq ?? 0) < digest.seq
        ? { chainHead: { seq: digest.seq, key: digest.key, sha256: digest.sha256, at: digest.createdAt } }
        : {};
    await deps.state.putMeta({
      ...fresh,
      lastRunAt: at.toISOString(),
      ...(success ? { lastSuccessAt: at.toISOString() } : {}),
      ...head,
    });
  } catch (e) {
    deps.logger.warn('could not record the run in META', { error: String(e) });
  }
}

function sum<T>(xs: T[], f: (x: T) => number): number {
  return xs.reduce((a, x) => a + f(x), 0);
}

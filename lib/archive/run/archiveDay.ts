import {
  type ArchiverError,
  type DeadlineBudget,
  mayStillBeOpen,
  relieveHeap,
} from '../../foundation/index.ts';
import type { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { nextDayState } from '../days/nextDayState.ts';
import type { PlannedDay } from '../days/planDays.ts';
import { putDayMerging } from '../days/putDayMerging.ts';
import { historyWriter } from '../parquet/historyWriter.ts';
import { warmParquetWorker } from '../parquet/warmParquetWorker.ts';
import type { DraftRow } from '../records/archiveRow.ts';
import { keyRecord } from '../records/keyedRecord.ts';
import type { DayState, WalkProgress } from '../state/dayState.ts';
import { CarriedRows, loadWalkIds, WalkIdParts } from '../walk/carriedRows.ts';
import { nextWalkFiles } from '../walk/nextWalkFiles.ts';
import { walkDay } from '../walk/walkDay.ts';
import { walkOutlook } from '../walk/walkOutlook.ts';
import { PartitionDrafts } from './partitionDrafts.ts';
import { quarantineRejected } from './quarantineRejected.ts';
import type { ArchiveDeps, ArchiveOptions, DayResult } from './runTypes.ts';

export interface DayContext {
  tmpDir: string;
  /** The effective window (configured, or learned from the server). */
  windowDays: number;
  /** The run's one deadline budget. */
  budget: DeadlineBudget;
  /**
   * Called once the day's walk has ended (before its commit): the run may start the next day's walk
   * then, so that this day's commit (file, state and manifest writes) overlaps it.
   */
  onWalked?: () => void;
}

/**
 * How a day ended: walked (to its end, or cut by the budget with what it held committed), or refused by
 * the server as outside its window (nothing committed; the run decides whether it became a gap).
 */
export type DayOutcome =
  | { kind: 'walked'; result: DayResult; next: DayState }
  | { kind: 'outside-window'; refusal: ArchiverError };

/**
 * Walks one day, commits its new rows partition by partition, quarantines its bad records and stores the
 * day's next state. A walk the budget cut short still commits what it holds, and so does a walk that met a
 * page too large to take (its error is then thrown, once the rest is committed). Other errors propagate:
 * the run records them in the day's state and goes on.
 */
export async function archiveDay(
  planned: PlannedDay,
  previous: DayState,
  committer: PartitionCommitter,
  deps: ArchiveDeps,
  options: ArchiveOptions,
  ctx: DayContext,
): Promise<DayOutcome> {
  const { api, objects, clock } = deps;
  const archivedAt = clock.now();
  // The walk's ids, saved part by part beside the commits made while it fetches (a deadline only).
  let idParts: WalkIdParts | undefined;
  // The encoding worker's warm-up (a resumed walk): it stops once the walk's own files take over (its
  // first commit) or the walk ended, so a commit waits behind one small warm-up file at most.
  let warming: Promise<void> | undefined;
  const warmedEnough = new AbortController();
  const resume = previous.walk;
  const expected = previous.totalElements ?? Math.max(0, ...(resume?.totals ?? []));
  // The ids an earlier cut walk of the day took, read beside the resumed walk's first requests.
  const carried = resume ? loadWalkIds(objects, planned.day, resume.idParts, expected) : undefined;
  // Rows are encoded into per-partition files while the walk is still fetching.
  const drafts = new PartitionDrafts<DraftRow>(
    committer,
    historyWriter(options.rowGroupSize, options.parquetEncoder),
    {
      tmpDir: ctx.tmpDir,
      prefix: `walk-${planned.day}`,
      // Under a deadline, rows (and the walk's ids) are committed while the walk fetches, and each
      // commit's time teaches the budget how much to keep: what the cut leaves fits before the end,
      // whatever the day's size.
      ...(ctx.budget.endsAt
        ? {
            flush: {
              everyMs: ctx.budget.reserveMs,
              clock,
              startCommit: () => {
                warmedEnough.abort();
                return ctx.budget.startCommit();
              },
              afterCommit: async () => idParts?.save(),
            },
          }
        : {}),
      // The earlier runs' files of this walk hold only ids the walk carries (and drops before they reach
      // the drafts): their ids are not read back, unless the carried ids cannot be read.
      ...(carried && resume?.files
        ? {
            covered: {
              files: new Set(resume.files),
              holds: carried.then(
                (ids) => ids !== undefined,
                () => false,
              ),
            },
          }
        : {}),
    },
  );
  try {
    // A walk an earlier run's deadline cut goes on from where it stood, with the ids it had taken, read
    // beside the resumed walk's first requests: its records wait for them in the sink, the requests do
    // not, so a resumed run spends its budget fetching (ids that cannot be read count as none: slower,
    // never weaker). Under a deadline, the walk's ids are remembered, so that a cut leaves them for the
    // next run.
    // A day scanned before has rows archived, and so has a day whose walk an earlier run cut (it committed
    // what it held): reading their ids back starts now, beside the walk's first requests (the walk's rows
    // wait for it in the drafts, the walk does not), not once the walk's own earlier ids are read.
    if (previous.totalElements !== undefined || resume) {
      drafts.expect(planned.day, expected);
      drafts.prepare(planned.day);
    }
    // A resumed walk writes files past a chunk: the encoding worker starts and warms up beside its first
    // requests, not inside its first commit, whose time sets what the run keeps before its end.
    if (resume && options.parquetEncoder === 'worker')
      warming = warmParquetWorker(ctx.tmpDir, { rowGroupSize: options.rowGroupSize }, warmedEnough.signal);
    const sink = ctx.budget.endsAt || resume ? new CarriedRows(drafts, carried) : drafts;
    if (ctx.budget.endsAt && sink instanceof CarriedRows)
      idParts = new WalkIdParts(objects, planned.day, sink, resume ? (resume.idParts ?? 0) : undefined);
    const walk = await walkDay(api, planned.day, {
      pageSize: options.pageSize,
      concurrency: options.pageConcurrency,
      maxPasses: options.maxPasses,
      maxPagesPerDay: options.maxPagesPerDay,
      open: mayStillBeOpen(planned.day, deps.clock.now()),
      sink,
      ...(resume ? { resume } : {}),
      ...(previous.totalElements === undefined ? {} : { expectedTotal: previous.totalElements }),
      keyRecord: (record) =>
        keyRecord(record, { tokenPolicy: options.tokenPolicy, tokenKey: deps.tokenKey, archivedAt }),
      tokenKey: deps.tokenKey,
      budget: ctx.budget,
    });
    warmedEnough.abort();
    ctx.onWalked?.();
    const pagesThisRun = walk.pages - (resume?.pages ?? 0);
    if (walk.outsideWindow) return { kind: 'outside-window', refusal: walk.outsideWindow };
    const endCommit = ctx.budget.startCommit();
    const { newRecords, files, bytes } = await drafts.commitAll();
    // A cut walk's ids not saved yet; without a deadline to save them beside, all of them.
    if (walk.interrupted && walk.progress && sink instanceof CarriedRows) {
      idParts ??= new WalkIdParts(objects, planned.day, sink, resume ? (resume.idParts ?? 0) : undefined);
      await idParts.save(true);
    }
    endCommit();
    const quarantined = await quarantineRejected(
      objects,
      planned.day,
      walk.rejected,
      clock.now(),
      { tokenPolicy: options.tokenPolicy, tokenKey: deps.tokenKey },
      deps.state,
    );
    // A page refused as too large: the rest of the day is committed above, and the day is recorded failed
    // with the page's error (the run goes on; a later run walks the day again).
    if (walk.badPage && !walk.interrupted) throw walk.badPage;
    const next = await putDayMerging(
      deps,
      nextDayState(
        previous,
        {
          age: planned.age,
          complete: walk.complete,
          interrupted: walk.interrupted,
          totalElements: walk.totalElements,
          distinctSeen: walk.distinct,
          shortfall: walk.shortfall,
          quarantined: walk.rejected.size,
          ...(walk.progress && sink instanceof CarriedRows
            ? { progress: cutProgress(walk.progress, idParts, sink, drafts, resume) }
            : {}),
        },
        clock.now(),
        ctx.windowDays,
      ),
    );
    if (!walk.complete && !walk.interrupted) {
      deps.logger.warn('day walk could not prove the day complete', {
        day: planned.day,
        shortfall: walk.shortfall,
        passes: walk.passes,
        unreliableTotals: walk.unreliableTotals,
      });
    }
    return {
      kind: 'walked',
      next,
      result: {
        day: planned.day,
        reason: planned.reason,
        totalElements: walk.totalElements,
        distinctSeen: walk.distinct,
        newRecords,
        quarantined,
        shortfall: walk.shortfall,
        passes: walk.passes,
        pages: walk.pages,
        files,
        bytes,
        sealed: next.sealed,
        complete: walk.complete,
        scannedAt: archivedAt.toISOString(),
        unreliableTotals: walk.unreliableTotals,
        interrupted: walk.interrupted,
        pagesThisRun,
        ...(resume ? { resumedAt: { pass: resume.passes, page: resume.nextPage } } : {}),
        ...(walk.progress ? { outlook: walkOutlook(walk.progress, walk.distinct, pagesThisRun) } : {}),
      },
    };
  } finally {
    warmedEnough.abort();
    await warming;
    await drafts.discard();
    // The day's id sets and buffers are garbage now: a heavy day must not leave them to the next one.
    relieveHeap();
  }
}

/**
 * What a cut walk leaves for the next run: where it stands, the parts of its ids saved, and the files
 * those ids cover (the earlier runs' only when this run carried their ids).
 */
function cutProgress(
  progress: WalkProgress,
  idParts: WalkIdParts | undefined,
  sink: CarriedRows,
  drafts: PartitionDrafts<DraftRow>,
  resume: WalkProgress | undefined,
): WalkProgress {
  const files = nextWalkFiles(sink.lost ? undefined : resume?.files, drafts.committedFiles);
  return {
    ...progress,
    ...(idParts?.parts ? { idParts: idParts.parts } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}

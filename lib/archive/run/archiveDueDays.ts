import {
  ArchiverError,
  type ArchiverErrorCode,
  type Day,
  type DeadlineBudget,
} from '../../foundation/index.ts';
import type { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { blankDay, failedDayState, gapDayState } from '../days/nextDayState.ts';
import type { PlannedDay } from '../days/planDays.ts';
import { putDayMerging } from '../days/putDayMerging.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { DayState } from '../state/dayState.ts';
import { archiveDay, type DayOutcome } from './archiveDay.ts';
import type { ArchiveDeps, ArchiveOptions, DayResult, FailedDay } from './runTypes.ts';

/** Errors that no other day could escape: the run stops, with that error's own exit code. */
const RUN_FATAL: ReadonlySet<ArchiverErrorCode> = new Set<ArchiverErrorCode>([
  'AUTH_REJECTED',
  'PLAN_REQUIRED',
  'LEASE_HELD',
  'CONFIG_INVALID',
]);

export interface DueDaysContext {
  deps: ArchiveDeps;
  options: ArchiveOptions;
  /** The days to archive, in order. */
  due: PlannedDay[];
  /** Known day states by day; updated as each day ends. */
  days: Map<Day, DayState>;
  windowDays: number;
  committer: PartitionCommitter;
  tmpDir: string;
  meta: ArchiveMeta;
  /** The run's one deadline budget: no day starts once it is spent, and it cuts the walks. */
  budget: DeadlineBudget;
  /** Extends the run's lease; called after every day that ran to its end. */
  renewLease(): Promise<void>;
}

export interface DueDaysOutcome {
  results: DayResult[];
  failedDays: FailedDay[];
  deferredDays: Day[];
  /** Days the server no longer answered for (400 at the window's edge): recorded as gaps. */
  gaps: Day[];
  stoppedByDeadline: boolean;
  /** The archive's META, with the window learned from those 400s. */
  meta: ArchiveMeta;
}

/**
 * The days of one run: each walked, committed and recorded in its own state; a day's failure is
 * recorded and the others go on; a day the server no longer answers for at the window's edge becomes a
 * gap and teaches the window; no new day starts once the budget is spent; an error no day could
 * escape (a rejected key) stops the run once every running day has ended.
 */
export async function archiveDueDays(ctx: DueDaysContext): Promise<DueDaysOutcome> {
  const { deps, options, due, days, windowDays, committer } = ctx;
  const { clock, logger } = deps;
  let meta = ctx.meta;
  const newGaps: Day[] = [];
  const runTmp = ctx.tmpDir;
  const results: DayResult[] = [];
  const failedDays: FailedDay[] = [];
  const deferredDays: Day[] = [];
  let stoppedByDeadline = false;
  let fatal: ArchiverError | undefined;
  let done = 0;
  let nextIndex = 0;
  // Lease renewals one at a time, in order, whichever day finishes first.
  let renewing: Promise<void> = Promise.resolve();
  const renew = () => (renewing = renewing.then(ctx.renewLease));
  /** One day: walk, commit, next state; a day's failure is recorded and the others go on. */
  const archiveOne = async (planned: PlannedDay, onWalked: () => void): Promise<void> => {
    done++;
    const previous = days.get(planned.day) ?? blankDay(planned.day);
    let outcome: DayOutcome;
    try {
      outcome = await archiveDay(planned, previous, committer, deps, options, {
        tmpDir: runTmp,
        windowDays,
        budget: ctx.budget,
        onWalked,
      });
    } catch (error) {
      if (ArchiverError.is(error) && RUN_FATAL.has(error.code)) {
        fatal ??= error;
        return;
      }
      await failDay(planned, previous, error);
      return ended(planned.day);
    }
    if (outcome.kind === 'outside-window') {
      await leftWindow(planned, previous, outcome.refusal);
      return ended(planned.day);
    }
    const { result, next } = outcome;
    days.set(planned.day, next);
    results.push(result);
    if (!result.interrupted) return ended(planned.day);
    // Cut by the budget: what the walk held is committed, and the day goes on in the next run.
    stoppedByDeadline = true;
    deferredDays.push(planned.day);
    const limit = options.deferralsBeforeFailure ?? 3;
    if ((next.deferredRuns ?? 0) >= limit) {
      failedDays.push(
        failedOf(
          planned.day,
          'DEADLINE',
          `the deadline cut this day short on ${next.deferredRuns} runs in a row`,
          next.deferredRuns ?? 0,
        ),
      );
    }
    deps.onProgress?.({
      done,
      total: due.length,
      day: planned.day,
      newRecords: result.newRecords,
      cut: true,
    });
  };
  /** A day that ran to its end (walked, failed or refused): the lease is renewed and progress reported. */
  const ended = async (day: Day): Promise<void> => {
    await renew();
    const last = results.at(-1);
    deps.onProgress?.({ done, total: due.length, day, newRecords: last?.day === day ? last.newRecords : 0 });
  };
  /** A day that failed: recorded in its own state, and the run goes on with the others. */
  const failDay = async (planned: PlannedDay, previous: DayState, error: unknown): Promise<void> => {
    const failed = failedDayState(previous, error, clock.now());
    days.set(planned.day, await putDayMerging(deps, failed).catch(() => failed));
    const f = failed.failure;
    failedDays.push(
      failedOf(planned.day, f?.code ?? 'INTERNAL', f?.message ?? String(error), f?.attempts ?? 1),
    );
    logger.error('day failed; the run goes on with the other days', {
      day: planned.day,
      code: f?.code,
      error: f?.message,
      attempts: f?.attempts,
    });
  };
  /**
   * The server refused the day (400): at the window's edge, the server keeps fewer days than we thought
   * (or its calendar runs ahead of UTC), so the day becomes a gap and the window is learned; earlier, the
   * day fails like any other.
   */
  const leftWindow = async (
    planned: PlannedDay,
    previous: DayState,
    refusal: ArchiverError,
  ): Promise<void> => {
    if (planned.age < windowDays - 3) return failDay(planned, previous, refusal);
    const reason = `the server answered 400 for age ${planned.age}: ${refusal.message}`;
    days.set(planned.day, await putDayMerging(deps, gapDayState(previous, reason)));
    newGaps.push(planned.day);
    meta = await learnWindow(deps, meta, planned.age);
    logger.error('day left the server before its final sweep: recorded as a gap', {
      day: planned.day,
      age: planned.age,
      code: 'GAP' satisfies ArchiverErrorCode,
      learnedWindowDays: planned.age,
    });
  };
  // `dayConcurrency` workers take the due days in order; each day commits its own partitions, so
  // exactly once holds as for one. A worker starts its next day once the day's walk has ended and the
  // day before it has ended: the commit of one day (file, state and manifest writes, no requests)
  // overlaps the walk of the next, at most `dayConcurrency` days walk at once, and as many commit. No new day starts once the budget is spent, after a
  // fatal error, or after a day failed in a way no day records (then the run fails with it).
  const started: Promise<void>[] = [];
  let broken = false;
  const worker = async (): Promise<void> => {
    /** This worker's day before the current one: it must have ended before another day starts. */
    let before: Promise<void> = Promise.resolve();
    while (!stoppedByDeadline && fatal === undefined && !broken && nextIndex < due.length) {
      if (ctx.budget.spent()) {
        stoppedByDeadline = true;
        break;
      }
      let walked: () => void = () => undefined;
      const walkEnded = new Promise<void>((resolve) => {
        walked = resolve;
      });
      const day = archiveOne(due[nextIndex++] as PlannedDay, walked).finally(walked);
      day.catch(() => {
        broken = true;
      });
      started.push(day);
      // At most two days a worker: one committing, the next walking.
      await Promise.all([walkEnded, before.catch(() => undefined)]);
      before = day;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.dayConcurrency ?? 1) }, worker));
  // Every day started has ended (its commit and state included) before the run goes on.
  await Promise.all(started);
  if (fatal) throw fatal;
  // Days whose commits overlapped end in any order: the results keep the order of the due days.
  const order = new Map(due.map((p, i) => [p.day, i] as const));
  results.sort((a, b) => (order.get(a.day) ?? 0) - (order.get(b.day) ?? 0));
  if (stoppedByDeadline) deferredDays.push(...due.slice(nextIndex).map((p) => p.day));

  return { results, failedDays, deferredDays, gaps: newGaps, stoppedByDeadline, meta };
}

function failedOf(day: Day, code: ArchiverErrorCode, message: string, attempts: number): FailedDay {
  return { day, code, message, attempts };
}

async function learnWindow(deps: ArchiveDeps, meta: ArchiveMeta, days: number): Promise<ArchiveMeta> {
  const fresh = (await deps.state.getMeta()) ?? meta;
  const learnedWindowDays = Math.min(days, fresh.learnedWindowDays ?? days);
  return deps.state.putMeta({ ...fresh, learnedWindowDays }).catch(() => ({ ...fresh, learnedWindowDays }));
}

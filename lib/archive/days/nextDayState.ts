import { ArchiverError, type Day } from '../../foundation/index.ts';
import type { DayState, WalkProgress } from '../state/dayState.ts';
import { sealRule } from './sealRule.ts';

export interface ScanOutcome {
  age: number;
  complete: boolean;
  interrupted: boolean;
  totalElements: number;
  distinctSeen: number;
  shortfall: number;
  quarantined: number;
  /** Where an interrupted walk stands (the next run goes on from there). */
  progress?: WalkProgress;
}

/** Whether an interrupted walk got further than the walk it resumed: a later pass, or a later page. */
function madeProgress(previous: WalkProgress | undefined, now: WalkProgress | undefined): boolean {
  if (!previous || !now) return true;
  return now.passes > previous.passes || (now.passes === previous.passes && now.nextPage > previous.nextPage);
}

/**
 * The day's state after a scan that ran (whether or not the deadline cut it short). A cut-short scan records
 * no age, so the day stays due, and counts `deferredRuns`; a scan that ran to its end records its age and
 * clears any failure. Only a complete scan at the last queryable age seals the day.
 */
export function nextDayState(previous: DayState, scan: ScanOutcome, now: Date, windowDays: number): DayState {
  const at = now.toISOString();
  const { failure: _failure, deferredRuns: _deferred, walk: _walk, ...rest } = previous;
  if (scan.interrupted) {
    // Cut short: the walk's place is kept for the next run. A day counts as stuck (DEADLINE after a few
    // runs) only while resumed walks stop getting further, not merely because it needs several runs.
    const { walk: _previousWalk, ...kept } = previous;
    return {
      ...kept,
      complete: false,
      deferredRuns: madeProgress(previous.walk, scan.progress) ? 1 : (previous.deferredRuns ?? 0) + 1,
      ...(scan.progress ? { walk: scan.progress } : {}),
    };
  }
  const sealed = sealRule.merged(previous, { sealed: sealRule.seals(scan, windowDays) });
  return {
    ...rest,
    scannedAges: [...new Set([...previous.scannedAges, scan.age])].sort((a, b) => a - b),
    firstScannedAt: previous.firstScannedAt ?? at,
    lastScannedAt: at,
    totalElements: scan.totalElements,
    distinctSeen: scan.distinctSeen,
    shortfall: scan.shortfall,
    quarantined: scan.quarantined,
    complete: scan.complete,
    sealed,
    ...(sealed && !previous.sealed ? { sealedAt: at } : {}),
  };
}

/** The day's state after its walk or commit failed: the failure is kept, with attempts and first/last time. */
export function failedDayState(previous: DayState, error: unknown, now: Date): DayState {
  const at = now.toISOString();
  return {
    ...previous,
    failure: {
      code: ArchiverError.is(error) ? error.code : 'INTERNAL',
      message: error instanceof Error ? error.message : String(error),
      attempts: (previous.failure?.attempts ?? 0) + 1,
      firstFailedAt: previous.failure?.firstFailedAt ?? at,
      lastFailedAt: at,
    },
  };
}

/** A day the server no longer answers for: a gap, with what was observed. */
export function gapDayState(previous: DayState, reason: string): DayState {
  return { ...previous, gap: true, gapReason: reason };
}

/** The state of a day no run has recorded yet. */
export function blankDay(day: Day): DayState {
  return { day, scannedAges: [], sealed: false, version: 0 };
}

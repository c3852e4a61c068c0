import type { DayResult, RunSummary } from '../../../lib/archive/run/runTypes.ts';

/** A finished, empty run; override what a test is about. */
export function runSummary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: 'run-1',
    startedAt: '2025-02-06T12:00:00.000Z',
    finishedAt: '2025-02-06T12:01:00.000Z',
    durationMs: 60_000,
    today: '2025-02-06',
    daysPlanned: 0,
    daysScanned: 0,
    daysDeferred: 0,
    recordsNew: 0,
    recordsSeen: 0,
    quarantined: 0,
    files: 0,
    bytes: 0,
    shortfalls: [],
    gaps: [],
    failedDays: [],
    deferredDays: [],
    brokenPartitions: [],
    oldestUnpublishedHours: 0,
    atRisk: [],
    stoppedByDeadline: false,
    days: [],
    ...overrides,
  };
}

/** One day's result of a finished walk, nothing archived; override what a test is about. */
export function dayResult(overrides: Partial<DayResult> & Pick<DayResult, 'day'>): DayResult {
  return {
    reason: 'backfill',
    totalElements: 0,
    distinctSeen: 0,
    newRecords: 0,
    quarantined: 0,
    shortfall: 0,
    passes: 1,
    pages: overrides.pagesThisRun ?? 1,
    files: 0,
    bytes: 0,
    sealed: false,
    complete: true,
    scannedAt: '2025-02-06T12:00:00.000Z',
    unreliableTotals: false,
    interrupted: false,
    pagesThisRun: 1,
    ...overrides,
  };
}

import type { Day } from '../../foundation/index.ts';
import type { ActiveSummary, DayResult, FailedDay, RunSummary } from './runTypes.ts';

/** What a run (one process's, or a fan-out's orchestration) did, from which its summary is made. */
export interface RunFactsForSummary {
  runId: string;
  started: Date;
  finished: Date;
  today: Day;
  daysPlanned: number;
  results: readonly DayResult[];
  failedDays: FailedDay[];
  deferredDays: Day[];
  gaps: Day[];
  stoppedByDeadline: boolean;
  atRisk: Day[];
  /** The digest the run appended (its settled notes are the run's bookkeeping, not the summary's). */
  digest?: NonNullable<RunSummary['digest']> & { settled?: string[] };
  /** What the run's start found among the staged files (a fan-out's plan step publishes none of them). */
  pending?: { broken: string[]; changed: string[]; oldestUnpublishedHours: number };
  learnedWindowDays?: number;
  active?: ActiveSummary;
  rebuilt?: { partitions: number; files: number; rows: number; foreign: string[] };
}

/**
 * The one summary of a run, whichever driver ran it (`finishRun` for a run, `finishFanout` for an
 * orchestration): the days' results summed, and each optional part present only when there is something
 * to say.
 */
export function summarizeRun(f: RunFactsForSummary): RunSummary {
  const { results } = f;
  const sum = (of: (r: DayResult) => number) => results.reduce((a, r) => a + of(r), 0);
  const digest = f.digest ? withoutSettled(f.digest) : undefined;
  const pending = f.pending ?? { broken: [], changed: [], oldestUnpublishedHours: 0 };
  return {
    runId: f.runId,
    startedAt: f.started.toISOString(),
    finishedAt: f.finished.toISOString(),
    durationMs: f.finished.getTime() - f.started.getTime(),
    today: f.today,
    daysPlanned: f.daysPlanned,
    daysScanned: results.filter((r) => !r.interrupted).length,
    daysDeferred: f.deferredDays.length,
    recordsNew: sum((r) => r.newRecords),
    recordsSeen: sum((r) => r.distinctSeen),
    quarantined: sum((r) => r.quarantined),
    files: sum((r) => r.files),
    bytes: sum((r) => r.bytes),
    shortfalls: results.filter((r) => r.shortfall > 0).map((r) => ({ day: r.day, shortfall: r.shortfall })),
    gaps: f.gaps,
    failedDays: f.failedDays,
    deferredDays: f.deferredDays,
    brokenPartitions: pending.broken,
    ...(pending.changed.length > 0 ? { changedStagedFiles: pending.changed } : {}),
    oldestUnpublishedHours: pending.oldestUnpublishedHours,
    ...(f.learnedWindowDays !== undefined ? { learnedWindowDays: f.learnedWindowDays } : {}),
    atRisk: f.atRisk,
    ...(f.active ? { active: f.active } : {}),
    ...(digest ? { digest } : {}),
    ...(f.rebuilt && f.rebuilt.files > 0
      ? { rebuilt: { partitions: f.rebuilt.partitions, files: f.rebuilt.files, rows: f.rebuilt.rows } }
      : {}),
    ...(f.rebuilt && f.rebuilt.foreign.length > 0 ? { foreignFiles: f.rebuilt.foreign } : {}),
    stoppedByDeadline: f.stoppedByDeadline,
    days: [...results],
  };
}

function withoutSettled(d: NonNullable<RunFactsForSummary['digest']>): NonNullable<RunSummary['digest']> {
  const { settled: _settled, ...digest } = d;
  return digest;
}

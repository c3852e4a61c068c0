import type { Clock } from '../clock/clock.ts';
import type { Day } from '../clock/day.ts';
import type { Logger } from '../log/logger.ts';
import type { TokenPolicy } from '../records/archiveRow.ts';
import type { StateStore } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';

/** Everything a run talks to, injected. */
export interface ArchiveDeps {
  api: UpstreamApi;
  objects: ObjectStore;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  /** Unique id of this run (random by default). */
  runId?: string;
  /** Progress callback (CLI progress bar); called after each day. */
  onProgress?: (event: ProgressEvent) => void;
}

export interface ProgressEvent {
  done: number;
  total: number;
  day: Day;
  newRecords: number;
}

export interface ArchiveOptions {
  tokenPolicy: TokenPolicy;
  /** Page size asked of the API; the echoed `size` is what is used. */
  pageSize: number;
  /** Pages fetched at once within one day. */
  pageConcurrency: number;
  /** Walks of one day before a shortfall against `totalElements` is accepted and recorded. */
  maxPasses: number;
  /** Ages (in days) at which a scanned day is scanned again. */
  rescanAges: number[];
  /** Age at which the final sweep runs and the day is sealed. */
  finalSweepAge: number;
  /** Days the API keeps (60): ages 0 .. windowDays-1 are queryable. */
  windowDays: number;
  /** Absolute time by which the run must have stopped starting new work. */
  deadline?: Date;
  /** Time kept in reserve before `deadline` for committing the day in flight. */
  deadlineReserveMs: number;
  /** Rows per Parquet row group. */
  rowGroupSize: number;
  /** Lease time-to-live; renewed after every day. */
  leaseTtlMs: number;
  /** Scan exactly these days (on-demand backfill) instead of the planned ones; each must be in the window. */
  onlyDays?: Day[];
  /** Local directory for Parquet files being written before upload. */
  tmpDir?: string;
}

export interface DayResult {
  day: Day;
  reason: 'backfill' | 'rescan' | 'final' | 'requested';
  totalElements: number;
  distinctSeen: number;
  newRecords: number;
  quarantined: number;
  shortfall: number;
  passes: number;
  pages: number;
  files: number;
  bytes: number;
  sealed: boolean;
}

export interface RunSummary {
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  today: Day;
  daysPlanned: number;
  daysScanned: number;
  /** Planned days left for a later run because the deadline came. */
  daysDeferred: number;
  recordsNew: number;
  recordsSeen: number;
  quarantined: number;
  files: number;
  bytes: number;
  /** Days whose last scan could not reach `totalElements`. */
  shortfalls: { day: Day; shortfall: number }[];
  /** Days that left the window unsealed: late records may be lost. */
  gaps: Day[];
  /** Unsealed days within 2 days of leaving the window. */
  atRisk: Day[];
  stoppedByDeadline: boolean;
  days: DayResult[];
}

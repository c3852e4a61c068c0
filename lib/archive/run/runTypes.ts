import type {
  ArchiverErrorCode,
  Clock,
  Day,
  DeadlineBudget,
  IncarnationLiveness,
  Logger,
} from '../../foundation/index.ts';
import type { PlanReason } from '../days/planDays.ts';
import type { DigestSigner } from '../digest/digestSigner.ts';
import type { ParquetEncoder } from '../parquet/historyParquetFile.ts';
import type { TokenPolicy } from '../records/archiveRow.ts';
import type { Lease } from '../state/lease.ts';
import type { StateStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';
import type { WalkOutlook } from '../walk/walkOutlook.ts';

/** Everything a run talks to, injected. */
export interface ArchiveDeps {
  api: UpstreamApi;
  objects: ObjectStore;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  /** The 32-byte key of the token HMACs and ids: nothing archived is an unkeyed function of a raw token. */
  tokenKey: Uint8Array;
  /** Signs the digest every run appends to the archive's chain (local Ed25519, or KMS in AWS). */
  signer: DigestSigner;
  /** Unique id of this run (random by default). */
  runId?: string;
  /** Decides whether a lease holder is certainly dead (local mode: a pid on this host that no longer exists). */
  isLeaseHolderDead?: (holder: Lease) => boolean | Promise<boolean>;
  /**
   * The kernel's word on the owner of a leftover run temp folder (the CLI: `incarnationLiveness`). Absent,
   * an owner is judged by its pid: a Lambda reads no kernel lock, so its bundle never loads `classic-level`.
   */
  incarnationLiveness?: IncarnationLiveness;
  /** Progress callback (CLI progress bar); called after each day. */
  onProgress?: (event: ProgressEvent) => void;
}

export interface ProgressEvent {
  done: number;
  total: number;
  day: Day;
  newRecords: number;
  /** The deadline cut this day's walk: it goes on in the next run. */
  cut?: boolean;
}

export interface ArchiveOptions {
  tokenPolicy: TokenPolicy;
  /** Page size asked of the API; the echoed `size` is what is used. */
  pageSize: number;
  /** Pages fetched at once within one day. */
  pageConcurrency: number;
  /** Days walked at once (default 1); each commits its own partitions, so exactly once holds as for one. */
  dayConcurrency?: number;
  /** Walks of one day before a shortfall against `totalElements` is accepted and recorded. */
  maxPasses: number;
  /** Hard cap on the pages of one day's pass: beyond it the day fails with `PAGE_LIMIT`. */
  maxPagesPerDay: number | undefined;
  /**
   * Most ids the fan-out's finish step takes the union of for one day (default `FINISH_MAX_IDS`, what
   * the engine's memory was measured to hold); a day past it fails with `DAY_TOO_BIG`.
   */
  finishMaxIds?: number;
  /** Ages (in days) at which a scanned day is scanned again. */
  rescanAges: number[];
  /**
   * Days the API keeps (60): ages 0 .. windowDays-1 are queryable. The final sweeps run at ages windowDays-2
   * and windowDays-1; a server that keeps fewer days is learned from its 400s.
   */
  windowDays: number;
  /**
   * The run's one deadline budget (from the Lambda's remaining time or `--max-run-ms`, with the
   * `DEADLINE_RESERVE_MS` reserve): built once by the caller and handed down to the day loop and the
   * walks. Absent: no deadline.
   */
  budget?: DeadlineBudget;
  /** Rows per Parquet row group. */
  rowGroupSize: number;
  /** Where history row groups are encoded (default `inline`); see `HistoryParquetFileOptions.encoder`. */
  parquetEncoder?: ParquetEncoder;
  /** Lease time-to-live; renewed after every day. */
  leaseTtlMs: number;
  /** Scan exactly these days (on-demand backfill) instead of the planned ones; each must be in the window. */
  onlyDays?: Day[];
  /** Root of the per-run private temp folders (spills, Parquet before upload); default the OS temp dir. */
  tmpDir?: string;
  /** Snapshot the active list in this run too (default true). */
  snapshotActive?: boolean;
  /** Runs the deadline cut a day short in a row before that day is reported as failed. */
  deferralsBeforeFailure?: number;
  /**
   * Reconcile the state with the whole archive in this run (see `reconcileDue`), even when the state's
   * chain head matches and the last reconciliation is recent.
   */
  reconcile?: boolean;
}

export interface DayResult {
  day: Day;
  reason: PlanReason;
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
  /** The walk proved the day complete. */
  complete: boolean;
  /** When the walk started: sessions that ended after it are pending for `verify`, not missing. */
  scannedAt: string;
  /** The Page numbers were caught lying on this walk (rows beyond the total, or a moving total). */
  unreliableTotals: boolean;
  /** The deadline cut the walk short; what it had was committed. */
  interrupted: boolean;
  /** Pages this run fetched for the day (`pages` counts every run of a walk that resumed). */
  pagesThisRun: number;
  /** Where this run went on with a walk an earlier run's deadline cut: its pass and first page. */
  resumedAt?: { pass: number; page: number };
  /** When cut: what the walk still needs, and the runs that takes at this run's pace. */
  outlook?: WalkOutlook;
}

/** The active-list snapshot this run took. */
export interface ActiveSummary {
  listed: number;
  /** seen/changed/gone rows derived (already-archived ones are dropped by the commit). */
  rows: number;
  /** Sessions open longer than history can show (window − 2 days). */
  longSessions: number;
  /** Why the snapshot failed, when it did (the history run went on). */
  error?: string;
}

/** A day whose walk or commit failed on this run. */
export interface FailedDay {
  day: Day;
  code: ArchiverErrorCode;
  message: string;
  /** Failed runs in a row for this day, this one included. */
  attempts: number;
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
  /** Days whose walk or commit failed on this run; the run went on with the others (exit code 7). */
  failedDays: FailedDay[];
  /** Days the deadline cut short or kept from starting; they resume on the next run. */
  deferredDays: Day[];
  /** Partitions whose manifest lists a missing file: only they are blocked (`tunnel-archiver repair`). */
  brokenPartitions: string[];
  /**
   * Staged files refused at publish because their bytes were not what their writer staged
   * (`STAGED_FILE_CHANGED`): dropped from their manifests, never digested. Absent when none.
   */
  changedStagedFiles?: string[];
  /** Age in hours of the oldest listed-but-unpublished file found at the start of the run (0: none). */
  oldestUnpublishedHours: number;
  /** The digest this run appended (absent when writing it failed: the next run lists these files). */
  digest?: { key: string; files: number; seq: number; sha256: string; createdAt: string };
  /** State the run rebuilt from the archive first (the state store had lost it). */
  rebuilt?: { partitions: number; files: number; rows: number };
  /**
   * Data files under `history/` or `active/` the archiver never committed (no digest lists them, their
   * partition's manifest does not name them): neither adopted nor digested, so `verify` reports them.
   */
  foreignFiles?: string[];
  /** The active-list snapshot of this run (absent when disabled). */
  active?: ActiveSummary;
  /** Days the server showed it keeps, when fewer than configured. */
  learnedWindowDays?: number;
  /** Unsealed days within 2 days of leaving the window. */
  atRisk: Day[];
  stoppedByDeadline: boolean;
  /**
   * The run's deadline (a budget with an end only): when it was, what the run kept before it for its
   * commits at the end (the reserve, or more once its commits proved slower), and how late the run ended,
   * its lease given back (negative: that much early).
   */
  deadline?: { endsAt: string; keptMs: number; overrunMs: number };
  days: DayResult[];
}

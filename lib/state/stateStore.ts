import type { Day } from '../clock/day.ts';

/** The single-writer lease. `fence` grows by one on every acquisition. */
export interface Lease {
  owner: string;
  fence: number;
  expiresAt: number;
}

/** What the archive knows of one history query day (`<d>/<d>`). */
export interface DayState {
  day: Day;
  /** Ages (days between `day` and the run's UTC today) at which a complete scan was done. */
  scannedAges: number[];
  firstScannedAt?: string;
  lastScannedAt?: string;
  /** `totalElements` the API reported on the last scan. */
  totalElements?: number;
  /** Distinct records the last scan collected. */
  distinctSeen?: number;
  /** `totalElements - distinctSeen` when the last scan could not reach the total, else 0. */
  shortfall?: number;
  /** Records quarantined (failed validation) on the last scan. */
  quarantined?: number;
  sealed: boolean;
  sealedAt?: string;
  /** Set when the day left the 60-day window before it was sealed: its late records may be lost. */
  gap?: boolean;
  /** Whether the last scan proved the day complete (a short last page and, when the totals lied, a pass adding nothing). */
  complete?: boolean;
  /** Why the day is a gap, when it is one: what was observed (e.g. the server answered 400 at age 59). */
  gapReason?: string;
  /** The last failed walk or commit of this day; cleared by the next success. */
  failure?: DayFailure;
  /** Consecutive runs whose deadline cut this day's walk short (its records so far were committed). */
  deferredRuns?: number;
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: number;
}

/** A failed day: recorded, logged and counted, and the run goes on with the other days. */
export interface DayFailure {
  code: string;
  message: string;
  /** Failed attempts since the last success. */
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
}

/** The datasets of the archive: `history/` (the API's history) and `active/` (snapshots of the active list). */
export type Dataset = 'history' | 'active';

/** One committed Parquet file of a partition. */
export interface ManifestFile {
  /** File name inside `history/dt=<dt>/`. */
  name: string;
  /** Key under which the file was staged before publication. */
  stagingKey: string;
  rows: number;
  bytes: number;
  runId: string;
  fence: number;
  committedAt: string;
  published: boolean;
}

/** The commit log of one Hive partition `dt=<dt>`: the only source of truth of what is archived. */
export interface PartitionManifest {
  dt: Day;
  /** Absent = `history`. */
  dataset?: Dataset;
  files: ManifestFile[];
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: number;
}

export interface ArchiveMeta {
  firstRunAt: string;
  /** Oldest day of the window at the first run: days before it were never the archive's to keep. */
  firstWindowStart: Day;
  lastRunAt?: string;
  lastSuccessAt?: string;
  /**
   * Days the server really keeps, learned when it answered 400 for a day inside the configured window
   * (a 59-day server, or a server calendar ahead of UTC). The planner never trusts more than this.
   */
  learnedWindowDays?: number;
  version: number;
}

/**
 * Port: the cursor/state store (DynamoDB API). All writes are conditional: `put*` fails with
 * `ArchiverError('CONFLICT')` when the stored `version` is not `expectedVersion`, and stores `version + 1`.
 */
export interface StateStore {
  /**
   * Takes the lease when it is free or expired, or when `breakIf(holder)` says its holder is certainly dead
   * (e.g. a local process that no longer exists); returns `undefined` when another owner holds it.
   */
  acquireLease(
    owner: string,
    now: Date,
    ttlMs: number,
    breakIf?: (holder: Lease) => boolean,
  ): Promise<Lease | undefined>;
  /** Extends a held lease; throws `LEASE_HELD` when it was lost (expired and taken). */
  renewLease(lease: Lease, now: Date, ttlMs: number): Promise<Lease>;
  /** Gives the lease up if still ours. */
  releaseLease(lease: Lease): Promise<void>;

  getMeta(): Promise<ArchiveMeta | undefined>;
  putMeta(meta: ArchiveMeta): Promise<ArchiveMeta>;

  getDay(day: Day): Promise<DayState | undefined>;
  listDays(): Promise<DayState[]>;
  putDay(state: DayState): Promise<DayState>;

  getPartition(dt: Day, dataset?: Dataset): Promise<PartitionManifest | undefined>;
  listPartitions(): Promise<PartitionManifest[]>;
  putPartition(manifest: PartitionManifest): Promise<PartitionManifest>;

  close?(): Promise<void>;
}

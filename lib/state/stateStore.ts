import type { Day } from '../clock/day.ts';
import type { ArchiverErrorCode } from '../errors/archiverError.ts';

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
  /**
   * Where the last walk stands when its deadline cut it (its rows so far were committed, and their ids
   * saved beside the staging files): the next run goes on from there. Cleared by a walk that ends.
   */
  walk?: WalkProgress;
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: number;
}

/**
 * Where a walk stands when its deadline cuts it: enough for the next run to go on with the same pass,
 * under the same completeness rules. Pages before `nextPage` of the current pass were absorbed.
 */
export interface WalkProgress {
  /** Passes started, the current one included. */
  passes: number;
  /** First page of the current pass not absorbed yet (0: the pass has not begun). */
  nextPage: number;
  /** The page size the server echoed for the current pass, and the pages it planned. */
  size: number;
  planned: number;
  /** Every `totalElements` seen, and the rows short pages proved (see `walkDay`). */
  totals: number[];
  observed: number;
  stalled: number;
  /** Rows the walk held when the current pass began (what the pass has added is measured from it). */
  passStart: number;
  /** Pages fetched so far, over every run. */
  pages: number;
  /** Parts of the walk's ids saved after part 0 (see `WalkIdParts`); absent: none. */
  idParts?: number;
  /**
   * The files the walk committed whose ids those parts hold (the most recent `MAX_WALK_FILES`): the next
   * run need not read them back to know what is archived. Absent: none known (every file is read).
   */
  files?: string[];
}

/** A failed day: recorded, logged and counted, and the run goes on with the other days. */
export interface DayFailure {
  /** A member of the one code table; a code an older version stored and this one lacks reads as INTERNAL. */
  code: ArchiverErrorCode;
  message: string;
  /** Failed attempts since the last success. */
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
}

/**
 * The datasets of the archive: `history/` (the API's history), `active/` (snapshots of the active list)
 * and `findings/` (what the detection rules found).
 */
export type Dataset = 'history' | 'active' | 'findings';

/** One committed Parquet file of a partition. */
export interface ManifestFile {
  /** File name inside `history/dt=<dt>/`. */
  name: string;
  /** Key under which the file was staged before publication. */
  stagingKey: string;
  rows: number;
  bytes: number;
  /**
   * Lower-case hex SHA-256 of the staged file as its writer staged it: a file whose bytes (or size) differ
   * when it is published or digested is refused (`STAGED_FILE_CHANGED`). Absent in entries written before
   * it was recorded: those are published and digested unchecked, as they were.
   */
  sha256?: string;
  runId: string;
  fence: number;
  committedAt: string;
  published: boolean;
  /**
   * The batch of rows the file holds, when its writer commits whole batches (the live-session rows):
   * a batch already listed is not committed again, without reading any file's ids.
   */
  batch?: string;
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
  /**
   * The digest chain's head as this archiver last wrote it. Kept outside the bucket, so someone who can
   * write the bucket cannot quietly rewind the chain: `verify` reports digests missing up to it as `truncated`.
   */
  chainHead?: ChainHead;
  /**
   * Files committed (or about to be: noted before their manifest write) that no digest lists yet: what
   * the next digest lists, and what a run publishes first (`lib/digest/pendingDigest.ts`). Lets a run
   * work from what it knows instead of listing the archive.
   */
  pendingDigest?: PendingDigestFile[];
  /** When a run last reconciled the state with the archive (in full, or from the chain since the last one). */
  reconciledAt?: string;
  /**
   * The chain head the last reconciliation's digest made: the next weekly reconciliation works from the
   * chain after it (`lib/run/reconcileSince.ts`). Only moves forward. Absent: the next one is a full one.
   */
  reconciledHead?: ChainHead;
  /** Where the weekly verify stands: what it verified, when, and up to which head (`lib/verify/verifyWeekly.ts`). */
  verified?: VerifyProgress;
  version: number;
}

/**
 * The weekly verify's record. Everything written up to `head` was checked in full once; `rotation` re-checks
 * the chain from digest 1 a slice a week, so every file is checked again within `periodWeeks`.
 */
export interface VerifyProgress {
  /** When the last weekly verify ran. */
  at: string;
  /** The newest digest it checked (`seq`, key, SHA-256 of its bytes). */
  head: { seq: number; key: string; sha256: string };
  /**
   * The store's own time of that digest (its `LastModified`): objects written later are new to the next
   * check, which compares with the store's clock only, never the verifier's.
   */
  boundary: string;
  /** Objects under the listed prefixes written up to `boundary` and accounted for (listed by a digest). */
  objects: number;
  /** Objects the checks found that no digest lists: reported every week while they stay. */
  unlisted: string[];
  rotation: { startedAt: string; nextSeq: number; periodWeeks: number };
  /** When the whole archive was last checked in full (the first weekly verify, or a finished full verify job). */
  fullAt?: string;
  /** With store-side checksum jobs (S3 Batch Operations): what replaces the listing and the rotation above. */
  checksums?: ChecksumProgress;
}

/**
 * The weekly verify's checksum jobs (`lib/verify/checksumRotation.ts`). The store computes every object's
 * SHA-256 in a job; the verify keeps only an order-free fingerprint a week of what the digests say was
 * written that week (by the store's clock), and compares a job's report with the sum over its weeks.
 */
export interface ChecksumProgress {
  /** Week index (`floor(ms / week)` of the store's time) → fingerprint of the chain's objects written in it. */
  weeks: Record<string, { sum: string; count: number }>;
  /** SHA-256 of the key files under `digests/` (public key, key check), as first checked in full. */
  keyFiles: Record<string, string>;
  /**
   * The rotation: a cursor over the closed weeks, oldest first, wrapping around; `startedAt` is when it
   * last started again from the oldest week.
   */
  rotation: { startedAt: string; cursor: number; periodWeeks: number };
  /** Jobs submitted and not judged yet: what each covers and the fingerprint its report must have. */
  jobs: ChecksumJobRecord[];
  /** Judged jobs whose outcome no weekly verify has reported yet (`checkChecksumReport`). */
  verdicts: ChecksumVerdict[];
  /** The newest judged job of each kind: what was checked by the store, when. */
  lastChecked?: { new?: ChecksumVerdictSummary; rotation?: ChecksumVerdictSummary };
}

export interface ChecksumJobRecord {
  id: string;
  /** `new`: everything written since the last check; `rotation`: a slice of older weeks. */
  kind: 'new' | 'rotation';
  submittedAt: string;
  /** Objects written after (exclusive) and before (exclusive) these times, by the store's clock. */
  after?: string;
  before: string;
  expected: { sum: string; count: number };
}

export interface ChecksumVerdictSummary {
  id: string;
  kind: 'new' | 'rotation';
  checkedAt: string;
  after?: string;
  before: string;
  objects: number;
  ok: boolean;
}

export interface ChecksumVerdict extends ChecksumVerdictSummary {
  failures: { kind: string; object?: string; message: string }[];
}

/** A data file (any dataset) or quarantined record noted for the next digest. */
export interface PendingDigestFile {
  /** Its final key (`<dataset>/dt=<dt>/<name>`, `quarantine/day=<d>/<id>.json`). */
  key: string;
  /** Where it is staged before publication (data files). */
  stagingKey?: string;
  /** When it was noted. */
  at: string;
}

/** A digest chain's newest digest: its position, key, SHA-256 of its bytes and when it was written. */
export interface ChainHead {
  seq: number;
  key: string;
  sha256: string;
  at: string;
}

/** The observed fields of a live session as stored: `ObservedFields` with times as ISO strings. */
export interface StoredObservedFields {
  id: string;
  user_id: number;
  token_id: number;
  token: string | null;
  token_hmac: string | null;
  token_name: string | null;
  virtual_token: string | null;
  virtual_token_hmac: string | null;
  virtual_token_name: string | null;
  subdomain: string;
  customdomain: string | null;
  mode: string;
  mode_udp: string;
  port: number;
  creation_time: string;
  last_update_time: string;
  extra_json: string | null;
  /**
   * HMAC of the token the session was opened with (`liveJoinToken`: the token, or the virtual token less
   * its `-<port>`), under `keep` and `hash`: what joins it to its history record. Null in state written
   * before it existed.
   */
  join_token_hmac: string | null;
}

/** The last observation of one live session. */
export interface ActiveObservation {
  fields: StoredObservedFields;
  /** `contentHash` of `fields`: what the next snapshot is compared with. */
  hash: string;
  /** Rows written for this id so far (part of the row id, so A→B→A→B changes stay distinct). */
  seq: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** Two snapshots further apart than twice the schedule: changes inside it were not seen one by one. */
export interface SnapshotGap {
  from: string;
  to: string;
  ms: number;
}

/** A session seen `gone` recently: kept so that, if its id is listed again, its rows get fresh ids. */
export interface ClosedSession {
  /** Rows written for this id, its `gone` row included. */
  seq: number;
  goneAt: string;
}

/** The last observation of each live session and when the last snapshot was taken. */
export interface ActiveObservations {
  sessions: Record<string, ActiveObservation>;
  /** Ids seen `gone` in the last day (tombstones). */
  closed?: Record<string, ClosedSession>;
  lastSnapshotAt?: string;
}

/**
 * A row of `active/` as the state's `pending` keeps it. The observed fields of a `seen`/`changed` row are
 * the session's `fields` in the same item, so only a `gone` row (whose session has left `sessions`)
 * carries its own: the item stays half the size on a first snapshot.
 */
export interface PendingActiveRow {
  row_id: string;
  observed_at: string;
  event: 'seen' | 'changed' | 'gone';
  id: string;
  /** Present only on `gone` rows. */
  fields?: StoredObservedFields;
}

/** Rows derived from a snapshot whose commit is not confirmed yet (write-ahead). */
export interface PendingActiveRows {
  dt: Day;
  rows: PendingActiveRow[];
  /** The batch's name (its first row's id): absent when an older release stored the rows. */
  batch?: string;
  /** Set when a commit of the batch may have begun: it never gains rows, and the next run commits it. */
  sealed?: boolean;
}

/** Live-session state: one item; rebuildable from `active/` (the last row per id). */
export interface ActiveState extends ActiveObservations {
  /**
   * Set before the rows of a snapshot are committed and cleared after: a run that finds it commits
   * those rows again (the commit drops the `row_id`s already held) before it does anything else.
   */
  pending?: PendingActiveRows;
  /** Most recent snapshot gaps, newest last (bounded). */
  gaps: SnapshotGap[];
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: number;
}

/**
 * The state store's five concerns, each a port of its own so that a consumer depends only on what it
 * uses. All writes are conditional: `put*` fails with `ArchiverError('CONFLICT')` when the stored
 * `version` is not the entity's `version` (0: never stored), and stores `version + 1`. All five are
 * written once (`stateConcerns.ts`: `versionedConcerns.ts`, `leaseConcern.ts`, `liveStateConcern.ts`) on
 * the `VersionedItems` primitive that each backend implements.
 */

/** Partition manifests: the commit log, the only source of truth of what is archived. */
export interface ManifestStore {
  getPartition(dt: Day, dataset?: Dataset): Promise<PartitionManifest | undefined>;
  /** Every partition of every dataset: history first, then active, each by day. */
  listPartitions(): Promise<PartitionManifest[]>;
  putPartition(manifest: PartitionManifest): Promise<PartitionManifest>;
}

/** What the archive knows of each history day (scans, sealing, failures, a cut walk's place). */
export interface DayStateStore {
  getDay(day: Day): Promise<DayState | undefined>;
  /** The stored states of these days (absent ones left out), by day, in a few requests. */
  getDays(days: readonly Day[]): Promise<DayState[]>;
  /** Every day, in day order. */
  listDays(): Promise<DayState[]>;
  putDay(state: DayState): Promise<DayState>;
}

/** The single-writer lease; its `fence` grows by one on every acquisition. */
export interface LeaseStore {
  /**
   * Takes the lease when it is free or expired, or when `breakIf(holder)` says its holder is certainly dead
   * (e.g. a local process that no longer exists); returns `undefined` when another owner holds it.
   */
  acquireLease(
    owner: string,
    now: Date,
    ttlMs: number,
    breakIf?: (holder: Lease) => boolean | Promise<boolean>,
  ): Promise<Lease | undefined>;
  /** Extends a held lease; throws `LEASE_HELD` when it was lost (expired and taken). */
  renewLease(lease: Lease, now: Date, ttlMs: number): Promise<Lease>;
  /** Gives the lease up if still ours. */
  releaseLease(lease: Lease): Promise<void>;
}

/** Live-session observations; `undefined` before the first snapshot. */
export interface LiveStore {
  getActiveState(): Promise<ActiveState | undefined>;
  putActiveState(state: ActiveState): Promise<ActiveState>;
}

/** The archive's META: its first window, the last runs, the learned window, the chain's head. */
export interface MetaStore {
  getMeta(): Promise<ArchiveMeta | undefined>;
  putMeta(meta: ArchiveMeta): Promise<ArchiveMeta>;
}

/**
 * The whole state store (DynamoDB API): every concern, for the wiring and the few callers (a run, the
 * state rebuild) that need several. A consumer of one concern takes that concern's port instead.
 */
export interface StateStore extends ManifestStore, DayStateStore, LeaseStore, LiveStore, MetaStore {
  close?(): Promise<void>;
}

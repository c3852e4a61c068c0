import type { Day } from '../../foundation/index.ts';
import type { ActiveState } from '../active/activeState.ts';
import type { ArchiveMeta } from './archiveMeta.ts';
import type { DayState } from './dayState.ts';
import type { Lease } from './lease.ts';
import type { Dataset, PartitionManifest } from './partitionManifest.ts';

/**
 * The state store's five concerns, each a port of its own so that a consumer depends only on what it
 * uses. All writes are conditional: `put*` fails with `ArchiverError('CONFLICT')` when the stored
 * `version` is not the entity's `version` (0: never stored), and stores `version + 1`. All five are
 * written once (`stateConcerns.ts`: `versionedConcerns.ts`, `leaseConcern.ts`, `liveStateConcern.ts`) on
 * the `VersionedItems` primitive that each backend implements. Each item's type is its schema's, declared
 * once: the archive's own items here (`dayState.ts`, `partitionManifest.ts`, `archiveMeta.ts`, `lease.ts`),
 * a feature's items beside the feature (`lib/archive/active/activeState.ts`, the weekly verify's record in
 * `lib/integrity/verify/verifyProgress.ts`): the schema the concerns read a stored item with.
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

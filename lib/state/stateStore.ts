export type {
  ActiveObservation,
  ActiveObservations,
  ActiveState,
  ClosedSession,
  PendingActiveRow,
  PendingActiveRows,
  SnapshotGap,
  StoredObservedFields,
} from './activeState.ts';
export type { ArchiveMeta, ChainHead, PendingDigestFile } from './archiveMeta.ts';
export type { DayFailure, DayState, WalkProgress } from './dayState.ts';
export type { Lease } from './lease.ts';
export type { Dataset, ManifestFile, PartitionManifest } from './partitionManifest.ts';
export type {
  DayStateStore,
  LeaseStore,
  LiveStore,
  ManifestStore,
  MetaStore,
  StateStore,
} from './statePorts.ts';
export type {
  ChecksumJobRecord,
  ChecksumProgress,
  ChecksumVerdict,
  ChecksumVerdictSummary,
  VerifyProgress,
} from './verifyProgress.ts';

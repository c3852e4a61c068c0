/**
 * The archive core's public entry point: what the other groups of lib/ use of it (records, the object and
 * state stores, the upstream client and emulator, the commit, Parquet, the digest chain, keys, live sessions,
 * settings, the day walk, the run and the fan-out). Loading it loads no AWS SDK client: the adapters that do
 * are behind ./adapters.ts.
 */
export { activeKeys } from './active/activeKeys.ts';
export { readActiveRows } from './active/activeParquet.ts';
export type { ActiveRow } from './active/activeRow.ts';
export { ACTIVE_COLUMNS } from './active/activeSchema.ts';
export type { ActiveObservations } from './active/activeState.ts';
export type { ActiveStatus } from './active/activeStatus.ts';
export { activeStatus } from './active/activeStatus.ts';
export { activeTable, formatActiveTable } from './active/activeTable.ts';
export { liveJoinTokenHmac, liveTokensOf } from './active/liveTokens.ts';
export type { LongSession } from './active/longSessions.ts';
export { longSessions } from './active/longSessions.ts';
export { rebuildActiveFromArchive } from './active/rebuildActiveFromArchive.ts';
export { archiveKeys, dataKeyInfo } from './commit/archiveKeys.ts';
export { isDeadLocalHolder } from './commit/isDeadLocalHolder.ts';
export type { CommitResult, DatasetWriter } from './commit/partitionCommitter.ts';
export { PartitionCommitter } from './commit/partitionCommitter.ts';
export { repairPartition } from './commit/repairPartition.ts';
export { archiveOptionsFromConfig } from './config/archiveOptionsFromConfig.ts';
export { SETTINGS } from './config/configSpec.ts';
export type { Config } from './config/loadConfig.ts';
export { loadConfig } from './config/loadConfig.ts';
export { ROLE_ARN } from './config/roleArn.ts';
export { TABLES } from './config/tableNames.ts';
export { isFinalAge, windowStartOf } from './days/planDays.ts';
export { sealRule } from './days/sealRule.ts';
export { appendDigest } from './digest/appendDigest.ts';
export { chainHeadMatches } from './digest/chainHeadMatches.ts';
export { parquetRowCount, sha256OfBytes, sha256OfSource } from './digest/describeDataFile.ts';
export { digestKeys } from './digest/digestKeys.ts';
export type { DigestFile } from './digest/digestSchema.ts';
export { digestFileSchema, signedBytes } from './digest/digestSchema.ts';
export type { DigestSigner } from './digest/digestSigner.ts';
export { verifySignature } from './digest/digestSigner.ts';
export { pendingDigest } from './digest/pendingDigest.ts';
export { readChainRange } from './digest/readChainRange.ts';
export type { ChainEntry, DigestChain } from './digest/readDigestChain.ts';
export { readDigestChain, readPublicKey } from './digest/readDigestChain.ts';
export { strictBase64 } from './digest/strictBase64.ts';
export type { EmulatorClock } from './emulator/emulatorClock.ts';
export { acceleratedClock, fixedClock, realClock } from './emulator/emulatorClock.ts';
export type { FaultConfig } from './emulator/faults.ts';
export { outageFor, resolveFaults } from './emulator/faults.ts';
export type { LiveShape } from './emulator/liveShape.ts';
export { DEFAULT_LIVE_SHAPE, LIVE_SHAPES } from './emulator/liveShape.ts';
export type { PoisonConfig } from './emulator/poison.ts';
export type { EmulatorTraffic } from './emulator/sessionArchive.ts';
export { EMULATOR_TRAFFIC } from './emulator/sessionArchive.ts';
export { EMULATOR_FREE_KEY, EMULATOR_PAID_KEY, startEmulator } from './emulator/startEmulator.ts';
export { loadLocalKeys } from './keys/loadLocalKeys.ts';
export type { ConfigHomeEnv, LocalKeysLocation } from './keys/localKeysLocation.ts';
export { keysInArchiveWarning, locateLocalKeys } from './keys/localKeysLocation.ts';
export { readTokenKey } from './keys/readTokenKey.ts';
export { secretsManagerTokenKey } from './keys/secretsManagerTokenKey.ts';
export type { ColumnSpec } from './parquet/historySchema.ts';
export {
  ATHENA_TYPE,
  HISTORY_COLUMN_NAMES,
  HISTORY_COLUMNS,
  schemaElements,
} from './parquet/historySchema.ts';
export { DEFAULT_PARQUET_COMPRESSION, parquetCompressors } from './parquet/parquetCompression.ts';
export { readRowGroups, readStringColumn } from './parquet/readHistoryParquet.ts';
export { formatIssues } from './records/formatIssues.ts';
export { keyRecord } from './records/keyedRecord.ts';
export { liveMatchesHistory } from './records/liveJoinToken.ts';
export { sha256Hex } from './records/sha256Hex.ts';
export { tokenHmac } from './records/tokenHmac.ts';
export { rebuildStateFromArchive } from './recover/rebuildStateFromArchive.ts';
export { preflight } from './run/preflight.ts';
export { runArchive } from './run/runArchive.ts';
export type { DayResult, FailedDay, ProgressEvent, RunSummary } from './run/runTypes.ts';
export type { ArchiveMeta } from './state/archiveMeta.ts';
export { chainHeadAfter } from './state/chainHeadAfter.ts';
export type { DayFailure, DayState } from './state/dayState.ts';
export { openLocalState } from './state/openLocalState.ts';
export type { DayStateStore, LiveStore, MetaStore, StateStore } from './state/statePorts.ts';
export { updateMeta } from './state/updateMeta.ts';
export type { VersionedItems } from './state/versionedItems.ts';
export type { ByteSource } from './store/byteSource.ts';
export { objectSource } from './store/byteSource.ts';
export { createFileObjectStore } from './store/fileObjectStore.ts';
export { mapJobObjects } from './store/mapJobObjects.ts';
export type { ObjectInfo, ObjectStore } from './store/objectStore.ts';
export type { TunnelApiClient } from './upstream/createTunnelApiClient.ts';
export { createTunnelApiClient } from './upstream/createTunnelApiClient.ts';
export type { UpstreamApi } from './upstream/upstreamApi.ts';
export { DEFAULT_MAX_PASSES, DistinctRows, walkDay } from './walk/walkDay.ts';

import type { Clock } from '../clock/clock.ts';
import type { Day } from '../clock/day.ts';
import type { Logger } from '../log/logger.ts';
import type { Dataset, PartitionManifest, PendingDigestFile, StateStore } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { dataKeyInfo } from './archiveKeys.ts';
import { type PublishAllResult, publishPartition } from './publishAllPending.ts';

/**
 * `publishAllPending` for the partitions the noted files (META's `pendingDigest`) belong to: every file
 * committed since the last digest was noted before its manifest write, so these are the only partitions
 * that can hold a listed-but-unpublished file (a full reconciliation covers anything older). Reads one
 * manifest per noted partition, never the whole state.
 */
export async function publishNoted(
  deps: { objects: ObjectStore; state: StateStore; clock: Clock; logger: Logger },
  noted: readonly PendingDigestFile[],
): Promise<PublishAllResult> {
  const result: PublishAllResult = { published: 0, broken: [], changed: [], oldestUnpublishedHours: 0 };
  const partitions = new Map<string, { dt: Day; dataset: Dataset }>();
  for (const f of noted) {
    const { dataset, dt } = dataKeyInfo(f.key);
    if (dataset === 'quarantine' || dt === null) continue;
    // The dataset is the key's first folder: any dataset the committer writes, not only those named here.
    const folder = f.key.slice(0, f.key.indexOf('/')) as Dataset;
    partitions.set(`${folder}/dt=${dt}`, { dt, dataset: folder });
  }
  const now = deps.clock.now().getTime();
  for (const { dt, dataset } of partitions.values()) {
    const manifest: PartitionManifest | undefined = await deps.state.getPartition(dt, dataset);
    if (manifest) await publishPartition(deps, manifest, now, result);
  }
  result.oldestUnpublishedHours = Math.round(result.oldestUnpublishedHours * 10) / 10;
  return result;
}

import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import type { ManifestStore, PartitionManifest } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';
import { brokenPartition } from './brokenPartition.ts';

const MAX_TRIES = 5;

/**
 * Moves the listed-but-unpublished files of a partition to their final keys, then records that. Needs no
 * API, so every run does it first. A file found in neither place blocks this partition only
 * (`PARTITION_BROKEN`). Marking the files published is settled by re-reading when its outcome is unknown.
 */
export async function publishPending(
  deps: { objects: ObjectStore; state: ManifestStore; logger: Logger },
  manifest: PartitionManifest,
): Promise<PartitionManifest> {
  const dataset = manifest.dataset ?? 'history';
  let current = manifest;
  for (let attempt = 1; current.files.some((f) => !f.published); attempt++) {
    for (const f of current.files.filter((x) => !x.published)) {
      const finalKey = archiveKeys.dataOf(dataset, current.dt, f.name);
      if (await deps.objects.head(finalKey)) {
        await deps.objects.deleteStaging(f.stagingKey);
        continue;
      }
      if (!(await deps.objects.head(f.stagingKey))) throw brokenPartition(dataset, current.dt, f, finalKey);
      await deps.objects.publish(f.stagingKey, finalKey);
    }
    try {
      current = await deps.state.putPartition({
        ...current,
        files: current.files.map((f) => ({ ...f, published: true })),
      });
    } catch (error) {
      const stored = await deps.state.getPartition(current.dt, dataset);
      if (!stored) throw error;
      current = stored;
      if (attempt >= MAX_TRIES && current.files.some((f) => !f.published)) {
        throw ArchiverError.is(error)
          ? error
          : new ArchiverError('STORE_FAILED', `cannot record publication of ${dataset}/dt=${current.dt}`, {
              cause: error,
            });
      }
    }
  }
  return current;
}

import { ArchiverError, type Logger } from '../../foundation/index.ts';
import type { PartitionManifest } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';
import { brokenPartition } from './brokenPartition.ts';
import { stagedFileChanged, stagedFileMismatch } from './stagedFileCheck.ts';

const MAX_TRIES = 5;

/**
 * Moves the listed-but-unpublished files of a partition to their final keys, then records that. Needs no
 * API, so every run does it first. A file found in neither place blocks this partition only
 * (`PARTITION_BROKEN`). A staged file whose bytes are not those its entry recorded at staging (size and
 * SHA-256) is not published and leaves the manifest; the partition's other files are published, and then
 * `STAGED_FILE_CHANGED` is thrown naming it. Marking the files published is settled by re-reading when its
 * outcome is unknown.
 */
export async function publishPending(
  deps: { objects: ObjectStore; state: ManifestStore; logger: Logger },
  manifest: PartitionManifest,
): Promise<PartitionManifest> {
  const dataset = manifest.dataset ?? 'history';
  const refused = new Map<string, ArchiverError>();
  let current = manifest;
  for (let attempt = 1; current.files.some((f) => !f.published); attempt++) {
    const changed = new Set<string>();
    for (const f of current.files.filter((x) => !x.published)) {
      const finalKey = archiveKeys.dataOf(dataset, current.dt, f.name);
      if (await deps.objects.head(finalKey)) {
        await deps.objects.deleteStaging(f.stagingKey);
        continue;
      }
      const staged = await deps.objects.head(f.stagingKey);
      if (!staged) throw brokenPartition(dataset, current.dt, f, finalKey);
      const mismatch = await stagedFileMismatch(deps.objects, f.stagingKey, f, staged.size);
      if (mismatch) {
        changed.add(f.name);
        refused.set(f.name, stagedFileChanged(dataset, current.dt, f, mismatch));
        continue;
      }
      await deps.objects.publish(f.stagingKey, finalKey);
    }
    try {
      current = await deps.state.putPartition({
        ...current,
        files: current.files.filter((f) => !changed.has(f.name)).map((f) => ({ ...f, published: true })),
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
  if (refused.size > 0) throw refusedFiles([...refused.values()]);
  return current;
}

/** One error for the refused files of a partition: the first one's, or one naming them all. */
function refusedFiles(errors: ArchiverError[]): ArchiverError {
  const [first] = errors;
  if (errors.length === 1 && first) return first;
  return new ArchiverError('STAGED_FILE_CHANGED', errors.map((e) => e.message).join(' '), {
    details: { files: errors.map((e) => e.details) },
  });
}

import type { Logger } from '../../foundation/index.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';

/** A staged file unlisted for this long can no longer be listed by any write still in flight. */
export const ORPHAN_AGE_MS = 24 * 3_600_000;

/**
 * Deletes staged files that no manifest lists and that are older than `ORPHAN_AGE_MS` (by the stamp their
 * name starts with). The commit protocol leaves such files when a manifest write's outcome could not be
 * settled; a listed file is never touched, whatever its age, so nothing committed can be removed (the
 * bucket has no lifecycle rule on `_staging/` for the same reason).
 */
export async function sweepStaging(
  deps: { objects: ObjectStore; state: ManifestStore; logger: Logger },
  now: Date,
): Promise<number> {
  const listed = new Set<string>();
  for (const m of await deps.state.listPartitions()) for (const f of m.files) listed.add(f.stagingKey);
  let removed = 0;
  for await (const o of deps.objects.list(archiveKeys.stagingPrefix)) {
    if (listed.has(o.key)) continue;
    const at = archiveKeys.stampedAt(o.key);
    if (!at || now.getTime() - at.getTime() < ORPHAN_AGE_MS) continue;
    await deps.objects.deleteStaging(o.key);
    removed++;
  }
  if (removed > 0) deps.logger.info('removed orphaned staged files', { removed });
  return removed;
}

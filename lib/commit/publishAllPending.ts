import type { Clock } from '../clock/clock.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import type { ManifestStore, PartitionManifest } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { publishPending } from './publishPending.ts';

export interface PublishAllResult {
  /** Files moved to their final keys. */
  published: number;
  /** `<dataset>/dt=<dt>` of partitions whose manifest lists a missing file. */
  broken: string[];
  /**
   * Staged files whose bytes were not what their writer staged (`STAGED_FILE_CHANGED`): not published,
   * dropped from their manifest. Their partitions' other files are published.
   */
  changed: string[];
  /** Age of the oldest listed-but-unpublished file found, in hours (0 when none). */
  oldestUnpublishedHours: number;
}

/**
 * Publishes every listed-but-unpublished file of every partition. It needs no API, so a run does it first,
 * before its preflight: days of auth failures cannot hold a committed file in `_staging/`. A broken
 * partition is reported and skipped; the others are published.
 */
export async function publishAllPending(deps: {
  objects: ObjectStore;
  state: ManifestStore;
  clock: Clock;
  logger: Logger;
}): Promise<PublishAllResult> {
  const result: PublishAllResult = { published: 0, broken: [], changed: [], oldestUnpublishedHours: 0 };
  const now = deps.clock.now().getTime();
  for (const manifest of await deps.state.listPartitions())
    await publishPartition(deps, manifest, now, result);
  result.oldestUnpublishedHours = Math.round(result.oldestUnpublishedHours * 10) / 10;
  return result;
}

/** Publishes one partition's listed-but-unpublished files into `result`; a broken partition is reported. */
export async function publishPartition(
  deps: { objects: ObjectStore; state: ManifestStore; logger: Logger },
  manifest: PartitionManifest,
  now: number,
  result: PublishAllResult,
): Promise<void> {
  const pending = manifest.files.filter((f) => !f.published);
  if (pending.length === 0) return;
  const where = `${manifest.dataset ?? 'history'}/dt=${manifest.dt}`;
  for (const f of pending) {
    const hours = (now - Date.parse(f.committedAt)) / 3_600_000;
    if (Number.isFinite(hours))
      result.oldestUnpublishedHours = Math.max(result.oldestUnpublishedHours, hours);
  }
  try {
    await publishPending(deps, manifest);
    result.published += pending.length;
  } catch (error) {
    if (ArchiverError.is(error, 'STAGED_FILE_CHANGED')) {
      const keys = changedKeys(error);
      result.changed.push(...keys);
      result.published += pending.length - keys.length;
      deps.logger.error('staged file changed after it was staged: not published, dropped from its manifest', {
        partition: where,
        code: error.code,
        files: keys,
        error: error.message,
      });
      return;
    }
    if (!ArchiverError.is(error, 'PARTITION_BROKEN')) throw error;
    result.broken.push(where);
    deps.logger.error('partition blocked: its manifest lists a missing file', {
      partition: where,
      code: error.code,
      error: error.message,
    });
  }
}

/** The staged keys a `STAGED_FILE_CHANGED` error names (one file, or several in `details.files`). */
export function changedKeys(error: ArchiverError): string[] {
  const one = (d: Record<string, unknown> | undefined) => (typeof d?.key === 'string' ? [d.key] : []);
  const many = error.details?.files;
  return Array.isArray(many) ? many.flatMap((d) => one(d as Record<string, unknown>)) : one(error.details);
}

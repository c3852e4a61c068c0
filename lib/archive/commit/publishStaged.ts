import { ArchiverError, type Clock, type Day, dayRange, type Logger } from '../../foundation/index.ts';
import type { PendingDigestFile } from '../digest/digestState.ts';
import type { Dataset, PartitionManifest } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { dataKeyInfo } from './archiveKeys.ts';
import { publishPending } from './publishPending.ts';

/** The datasets whose partitions a reconciliation publishes, rebuilds and sweeps. */
const RECONCILED_DATASETS: readonly Dataset[] = ['history', 'active', 'findings'];

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
 * Which partitions a run (or a fan-out's plan step) publishes before its days, as it decided to reconcile:
 * - `noted`, a steady run: the partitions of the files noted for the next digest (META's `pendingDigest`).
 *   Every file committed since the last digest was noted before its manifest write, so only they can hold
 *   a listed-but-unpublished file; one manifest a noted partition is read, never the whole state.
 * - `since`, a weekly reconciliation from the chain since the last one: the noted ones, and every
 *   partition of every reconciled dataset from `from` to `today` (older ones were published by the last
 *   reconciliation, and nothing is committed to a day before the window).
 * - `all`, a full reconciliation: every partition the state lists.
 */
export type PublishScope =
  | { kind: 'noted'; notes: readonly PendingDigestFile[] }
  | { kind: 'since'; notes: readonly PendingDigestFile[]; from: Day; today: Day }
  | { kind: 'all' };

/** The scope of a run that decided whether to reconcile, and (a weekly one) from which day. */
export function publishScopeOf(
  reconcile: boolean,
  since: { from: Day; today: Day } | undefined,
  notes: readonly PendingDigestFile[],
): PublishScope {
  if (since) return { kind: 'since', notes, from: since.from, today: since.today };
  return reconcile ? { kind: 'all' } : { kind: 'noted', notes };
}

/**
 * The one way a run publishes what earlier runs committed: every listed-but-unpublished file of the
 * partitions in `scope`, each partition once, through `publishPartition`. It needs no API, so a run does it
 * first, before its preflight: days of auth failures cannot hold a committed file in `_staging/`. A broken
 * partition, or a staged file that changed, is reported and skipped; the others are published.
 */
export async function publishStaged(
  deps: { objects: ObjectStore; state: ManifestStore; clock: Clock; logger: Logger },
  scope: PublishScope,
): Promise<PublishAllResult> {
  const result: PublishAllResult = { published: 0, broken: [], changed: [], oldestUnpublishedHours: 0 };
  const now = deps.clock.now().getTime();
  const seen = new Set<string>();
  const publish = async (manifest: PartitionManifest | undefined) => {
    if (!manifest) return;
    const where = `${manifest.dataset ?? 'history'}/dt=${manifest.dt}`;
    if (seen.has(where)) return;
    seen.add(where);
    await publishPartition(deps, manifest, now, result);
  };
  if (scope.kind === 'all') {
    for (const manifest of await deps.state.listPartitions()) await publish(manifest);
  } else {
    for (const { dt, dataset } of notedPartitions(scope.notes))
      await publish(await deps.state.getPartition(dt, dataset));
    if (scope.kind === 'since') {
      for (const dt of dayRange(scope.from, scope.today)) {
        for (const dataset of RECONCILED_DATASETS) await publish(await deps.state.getPartition(dt, dataset));
      }
    }
  }
  result.oldestUnpublishedHours = Math.round(result.oldestUnpublishedHours * 10) / 10;
  return result;
}

/** The partitions the noted files belong to (quarantined items have none to publish). */
function notedPartitions(notes: readonly PendingDigestFile[]): { dt: Day; dataset: Dataset }[] {
  const partitions = new Map<string, { dt: Day; dataset: Dataset }>();
  for (const f of notes) {
    const { dataset, dt } = dataKeyInfo(f.key);
    if (dataset === 'quarantine' || dt === null) continue;
    // The dataset is the key's first folder: any dataset the committer writes, not only those named here.
    const folder = f.key.slice(0, f.key.indexOf('/')) as Dataset;
    partitions.set(`${folder}/dt=${dt}`, { dt, dataset: folder });
  }
  return [...partitions.values()];
}

/** Publishes one partition's listed-but-unpublished files into `result`; a broken partition is reported. */
async function publishPartition(
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

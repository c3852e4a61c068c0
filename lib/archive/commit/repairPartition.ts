import type { Day, Logger } from '../../foundation/index.ts';
import type { Dataset, ManifestFile } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';

export interface RepairResult {
  dt: Day;
  dataset: Dataset;
  /** Listed files found in neither place, now dropped from the manifest. */
  dropped: Pick<ManifestFile, 'name' | 'rows' | 'stagingKey'>[];
  /** Rows those files held: archived again on the next scan while their day is in the window. */
  rowsLost: number;
}

/**
 * The documented way out of `PARTITION_BROKEN`: drops from a partition's manifest the listed files that are
 * in neither their staging nor their final place, so the partition is writable again. Files that exist are
 * kept. A dry run (`apply: false`) only reports. Their rows are archived again by the next scan of their day
 * while it is in the API window; older rows are lost, which the result and the log say.
 */
export async function repairPartition(
  deps: { objects: ObjectStore; state: ManifestStore; logger: Logger },
  dt: Day,
  opts: { dataset?: Dataset; apply: boolean },
): Promise<RepairResult> {
  const dataset = opts.dataset ?? 'history';
  for (;;) {
    const manifest = await deps.state.getPartition(dt, dataset);
    if (!manifest) return { dt, dataset, dropped: [], rowsLost: 0 };
    const missing: ManifestFile[] = [];
    for (const f of manifest.files) {
      const there =
        (await deps.objects.head(archiveKeys.dataOf(dataset, dt, f.name))) ??
        (await deps.objects.head(f.stagingKey));
      if (!there) missing.push(f);
    }
    const result: RepairResult = {
      dt,
      dataset,
      dropped: missing.map(({ name, rows, stagingKey }) => ({ name, rows, stagingKey })),
      rowsLost: missing.reduce((a, f) => a + f.rows, 0),
    };
    if (!opts.apply || missing.length === 0) return result;
    const gone = new Set(missing.map((f) => f.name));
    try {
      await deps.state.putPartition({ ...manifest, files: manifest.files.filter((f) => !gone.has(f.name)) });
    } catch (error) {
      const stored = await deps.state.getPartition(dt, dataset);
      if (stored && !stored.files.some((f) => gone.has(f.name))) return result;
      if (stored?.version === manifest.version) throw error;
      continue; // changed under us: look again
    }
    deps.logger.warn('partition repaired: missing files dropped from its manifest', { ...result });
    return result;
  }
}

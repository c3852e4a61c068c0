import { ArchiverError, type Day } from '../../foundation/index.ts';
import type { Dataset, ManifestFile } from '../state/partitionManifest.ts';

/** The error of a partition whose manifest lists a file that is gone: it blocks that partition only. */
export function brokenPartition(
  dataset: Dataset,
  dt: Day,
  file: ManifestFile,
  finalKey: string,
): ArchiverError {
  return new ArchiverError(
    'PARTITION_BROKEN',
    `Partition ${dataset}/dt=${dt} lists ${file.name}, but it is neither at ${finalKey} nor at ${file.stagingKey}. ` +
      `Only this partition is blocked. Restore the file, or run 'tunnel-archiver repair --dt ${dt}' to drop the ` +
      'missing entry (its records are archived again on the next scan while their day is in the window).',
    { details: { dataset, dt, file: file.name, finalKey, stagingKey: file.stagingKey } },
  );
}

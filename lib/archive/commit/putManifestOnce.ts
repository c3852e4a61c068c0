import { ArchiverError, type Logger } from '../../foundation/index.ts';
import type { ManifestFile, PartitionManifest } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';

/** Tries of one manifest write whose outcome stays unknown before the commit is given up for this run. */
const MAX_UNKNOWN = 4;

/**
 * Lists `file` in `manifest` by a conditional write, settling an unknown outcome by re-reading. Returns the
 * stored manifest when the file is listed (by this write, or by an earlier try whose response was lost), or
 * `'moved-on'` when the manifest advanced past `manifest.version` without the file: then no try of ours can
 * ever apply, and the staged file is certainly unlisted. When the store cannot even be re-read, the error
 * is thrown and the staged file must be left where it is.
 */
export async function putManifestOnce(
  deps: { state: ManifestStore; logger: Logger },
  manifest: PartitionManifest,
  file: ManifestFile,
): Promise<PartitionManifest | 'moved-on'> {
  const dataset = manifest.dataset ?? 'history';
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.state.putPartition({ ...manifest, files: [...manifest.files, file] });
    } catch (error) {
      const stored = await deps.state.getPartition(manifest.dt, dataset);
      if (stored?.files.some((f) => f.name === file.name)) {
        deps.logger.info('manifest write outcome was unknown; re-read shows it applied', {
          dataset,
          dt: manifest.dt,
          file: file.name,
          code: ArchiverError.is(error) ? error.code : String(error),
        });
        return stored;
      }
      if ((stored?.version ?? 0) !== manifest.version) return 'moved-on';
      // Same version, not listed: the write did not apply (yet). Trying the same write again is safe: of it
      // and a delayed earlier try, at most one can apply, and either lists the same file.
      if (attempt >= MAX_UNKNOWN) throw error;
    }
  }
}

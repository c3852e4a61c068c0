import type { Dataset, ManifestFile } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import { dataKeyInfo } from './archiveKeys.ts';

/** Where a data file stands in the state: named by its partition's manifest, not named, or no manifest at all. */
export type Membership = 'listed' | 'unlisted' | 'no-manifest';

/**
 * Answers whether a data file (`history/dt=…/name`, `active/dt=…/name`) was committed, that is, named
 * by its partition's manifest. A miss re-reads the manifest once, so a file another writer (the snapshot
 * function has no lease) committed and published since the last read still counts as committed.
 * Files are committed before they are published, so a published file that its existing manifest does not
 * name was never written by the archiver: planted, or foreign.
 */
export class ManifestMembership {
  readonly #state: Pick<ManifestStore, 'getPartition'>;
  readonly #names = new Map<string, Map<string, ManifestFile> | null>();

  constructor(state: Pick<ManifestStore, 'getPartition'>) {
    this.#state = state;
  }

  async of(key: string): Promise<Membership> {
    const found = await this.#lookup(key);
    return found === undefined ? 'unlisted' : found === null ? 'no-manifest' : 'listed';
  }

  /**
   * The manifest entry that names a data file (what its writer recorded at staging: size, SHA-256), or
   * undefined when no manifest names it.
   */
  async entry(key: string): Promise<ManifestFile | undefined> {
    return (await this.#lookup(key)) ?? undefined;
  }

  /** The entry naming `key`; null when it has no manifest; undefined when its manifest does not name it. */
  async #lookup(key: string): Promise<ManifestFile | null | undefined> {
    const { dataset: kind, dt } = dataKeyInfo(key);
    if (kind === 'quarantine') return null; // quarantined records have no manifest
    if (dt === null) return undefined;
    // The manifest's dataset is the key's first folder: any dataset the committer writes, not only those named here.
    const dataset = key.slice(0, key.indexOf('/')) as Dataset;
    const name = key.slice(key.lastIndexOf('/') + 1);
    const cacheKey = `${dataset}/${dt}`;
    const cached = this.#names.get(cacheKey)?.get(name);
    if (cached) return cached;
    const manifest = await this.#state.getPartition(dt, dataset);
    const names = manifest === undefined ? null : new Map(manifest.files.map((f) => [f.name, f]));
    this.#names.set(cacheKey, names);
    if (names === null) return null;
    return names.get(name);
  }
}

import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { MetaStore } from '../state/statePorts.ts';
import { updateMeta } from '../state/updateMeta.ts';
import type { PendingDigestFile } from './digestState.ts';

type MetaPort = MetaStore;

/**
 * The durable record of what the next digest must list (META's `pendingDigest`), kept as files are
 * written, for every dataset alike: a file is noted before its manifest write (data files, through the
 * committer) or before it is written (quarantined records). A note whose file never got committed is
 * dropped by the digest that finds it so (`appendDigest`). Without META (before the first run, which
 * reconciles with the whole archive anyway) nothing is noted.
 */
export const pendingDigest = {
  async note(state: MetaPort, files: readonly PendingDigestFile[]): Promise<void> {
    if (files.length === 0) return;
    await updateMeta(state, (meta) => {
      const known = new Set((meta.pendingDigest ?? []).map((f) => f.key));
      const fresh = files.filter((f) => !known.has(f.key));
      return fresh.length === 0
        ? undefined
        : { ...meta, pendingDigest: [...(meta.pendingDigest ?? []), ...fresh] };
    });
  },

  /** META without the notes of `settled` (digested, or never committed). */
  without(meta: ArchiveMeta, settled: ReadonlySet<string>): ArchiveMeta {
    const { pendingDigest: notes, ...rest } = meta;
    const left = (notes ?? []).filter((f) => !settled.has(f.key));
    return left.length === 0 ? rest : { ...rest, pendingDigest: left };
  },
};

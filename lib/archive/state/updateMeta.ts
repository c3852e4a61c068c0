import { ArchiverError } from '../../foundation/index.ts';
import type { ArchiveMeta } from './archiveMeta.ts';
import type { MetaStore } from './statePorts.ts';

/**
 * Each round lets at least one writer through, so W writers at once settle in W rounds: a run has up to
 * two day commits a day worker (16 workers at most), its active snapshot, and another run or the
 * snapshot function beside it.
 */
const MAX_CONFLICTS = 40;

/**
 * Read-modify-write of META, retried when another writer (a concurrent run, the snapshot function)
 * changed it in between. `change` returns the new META, or `undefined` when there is nothing to write
 * (which also settles a write whose response was lost: re-read, the change is there). Nothing is written
 * when META does not exist yet (the first run creates it).
 */
export async function updateMeta(
  state: MetaStore,
  change: (meta: ArchiveMeta) => ArchiveMeta | undefined,
): Promise<ArchiveMeta | undefined> {
  for (let attempt = 1; ; attempt++) {
    const meta = await state.getMeta();
    if (meta === undefined) return undefined;
    const next = change(meta);
    if (next === undefined) return meta;
    try {
      return await state.putMeta({ ...next, version: meta.version });
    } catch (error) {
      if (attempt >= MAX_CONFLICTS || !ArchiverError.is(error)) throw error;
      if (error.code !== 'CONFLICT' && error.code !== 'STORE_FAILED') throw error;
    }
  }
}

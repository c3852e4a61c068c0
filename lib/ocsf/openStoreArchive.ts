import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '../store/objectStore.ts';
import { copyArchiveDays } from './copyArchiveDays.ts';
import { type OcsfArchive, type OcsfDays, openOcsfArchive } from './ocsfArchive.ts';

/**
 * An archive in a store (S3) opened for the mapping: the partitions in `days` copied into a fresh
 * folder under `tmpDir` (removed on close), read by DuckDB. Reads the store only.
 */
export function openStoreArchive(
  objects: ObjectStore,
  tmpDir: string,
): (days: OcsfDays) => Promise<OcsfArchive> {
  return async (days) => {
    const dir = await mkdtemp(join(tmpDir, 'archive-'));
    try {
      await copyArchiveDays(objects, dir, days);
      const archive = await openOcsfArchive(dir, days);
      return {
        ...archive,
        close() {
          archive.close();
          void rm(dir, { recursive: true, force: true });
        },
      };
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
  };
}

import { mkdir, rm, rmdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ArchiverError } from '../errors/archiverError.ts';

/**
 * The run folders this process has removed, the latest {@link MAX_CLOSED_REMEMBERED}. A writer that comes late
 * (a draft's file, a staged file, the encoding worker's warm-up) must not make a closed run's folder again:
 * nobody would remove it, and it has no owner file for the next run's sweep to judge it by. A late writer
 * comes while its run ends, never thousands of runs later, so a warm Lambda sandbox that serves run after
 * run remembers a bounded number of paths.
 */
const closed = new Set<string>();

/** How many closed folders a process remembers (a `Set` keeps insertion order: the oldest is forgotten first). */
export const MAX_CLOSED_REMEMBERED = 4_096;

/**
 * Makes sure a run's private folder exists before a file is written in it (mode 0700, made where it is
 * missing), and refuses with `INTERNAL` once `removeRunFolder` closed it, even when the removal ran while the
 * folder was being made: then the folder made is taken away again.
 */
export async function ensureRunFolder(dir: string): Promise<void> {
  const key = resolve(dir);
  const refuse = () =>
    new ArchiverError('INTERNAL', `the run's folder ${dir} is closed: nothing more is written in it`);
  if (closed.has(key)) throw refuse();
  await mkdir(key, { recursive: true, mode: 0o700 });
  if (closed.has(key)) {
    // Closed while it was being made: an empty folder made after the removal is this call's to take back.
    await rmdir(key).catch(() => undefined);
    throw refuse();
  }
}

/**
 * Closes a run's folder for good and removes it with what it holds; later `ensureRunFolder` calls refuse
 * (as long as it is among the latest {@link MAX_CLOSED_REMEMBERED} closed).
 */
export async function removeRunFolder(dir: string): Promise<void> {
  const key = resolve(dir);
  closed.delete(key);
  closed.add(key);
  if (closed.size > MAX_CLOSED_REMEMBERED) closed.delete(closed.values().next().value as string);
  await rm(dir, { recursive: true, force: true });
}

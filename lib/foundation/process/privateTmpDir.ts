import { chmod, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../errors/archiverError.ts';

/** This process's user id, or undefined where the platform has none (Windows): then no owner is checked. */
export const currentUid = (): number | undefined =>
  typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Whether `entry` (looked at with `lstat`, never through a link) is a real folder of user `uid`: what a
 * sweep may judge and remove. A link, a file, or another user's folder is never ours to touch.
 */
export async function isOwnFolder(entry: string, uid: number | undefined = currentUid()): Promise<boolean> {
  const s = await lstat(entry).catch(() => undefined);
  return s?.isDirectory() === true && !s.isSymbolicLink() && (uid === undefined || s.uid === uid);
}

/**
 * Makes `dir` (in a shared temp folder) this user's private folder, mode 0700, or
 * checks the one there: a symbolic link, something other than a folder, or a folder of another user is
 * refused (CONFIG_INVALID: someone else may read or plant what goes in it); a folder of this user with a
 * looser mode is set to 0700.
 */
export async function ensurePrivateDir(dir: string, uid: number | undefined = currentUid()): Promise<void> {
  // The shared parent (a TMPDIR) may not exist yet: made as before, with the default mode.
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const s = await lstat(dir);
  const refuse = (why: string) =>
    new ArchiverError(
      'CONFIG_INVALID',
      `${dir} ${why}: the archiver keeps its process locks there and will not use it; remove it, or set TMPDIR to a folder of your own`,
    );
  if (s.isSymbolicLink()) throw refuse('is a symbolic link');
  if (!s.isDirectory()) throw refuse('is not a folder');
  if (uid !== undefined && s.uid !== uid) throw refuse(`belongs to user ${s.uid}, not to you (user ${uid})`);
  if ((s.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

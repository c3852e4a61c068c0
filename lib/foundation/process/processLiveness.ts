import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isKernelLockHeld, tryKernelLock } from './kernelLock.ts';
import { ensurePrivateDir, isOwnFolder } from './privateTmpDir.ts';
import { PROCESS_INCARNATION } from './processIncarnation.ts';

/**
 * Where the liveness locks of this user's processes on this host live (one kernel lock each, named by
 * incarnation): `<tmp>/tunnel-archiver-live-<uid>`, a 0700 folder of this user alone (see `ensurePrivateDir`).
 */
export const livenessRoot = (root: string = tmpdir(), uid: number | string = currentUidOrName()): string =>
  path.join(root, `tunnel-archiver-live-${uid}`);

function currentUidOrName(): number | string {
  return typeof process.getuid === 'function' ? process.getuid() : 'user';
}

/** A lock nobody holds is swept only after this long: past any lease TTL, so its owner is judged dead first. */
const SWEEP_AFTER_MS = 24 * 3_600_000;

let held: Promise<void> | undefined;

/**
 * Holds this process's liveness lock (idempotent) until the process ends: the kernel releases it the
 * moment the process dies, SIGKILL included. Another process on this host can then tell, by
 * {@link isIncarnationDead}, that a lease owner of this incarnation is gone, without reading a pid.
 * Leftover locks of dead processes older than a day are swept.
 */
export function holdProcessLiveness(root: string = tmpdir()): Promise<void> {
  held ??= (async () => {
    const dir = livenessRoot(root);
    await ensurePrivateDir(dir);
    const result = await tryKernelLock(path.join(dir, PROCESS_INCARNATION));
    if (result.held) return; // cannot happen for a fresh incarnation; nothing to hold twice
    await sweepDeadLocks(dir);
  })();
  return held;
}

/**
 * What the kernel says of the process of `incarnation` on this host: `alive` while it holds its liveness
 * lock, `dead` once the lock exists but nobody holds it, `unknown` when there is no such lock (another
 * TMPDIR, or a process that never took one).
 */
export async function incarnationLiveness(
  incarnation: string,
  root: string = tmpdir(),
): Promise<'alive' | 'dead' | 'unknown'> {
  if (!/^[0-9a-f-]{36}$/.test(incarnation)) return 'unknown';
  // Only this user's own folders are read (a lock is opened, which writes in its folder): never through a link.
  if (!(await isOwnFolder(livenessRoot(root)))) return 'unknown';
  const dir = path.join(livenessRoot(root), incarnation);
  if (!(await isOwnFolder(dir))) return 'unknown';
  const exists = await lstat(path.join(dir, 'LOCK')).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) return 'unknown';
  return (await isKernelLockHeld(dir)) ? 'alive' : 'dead';
}

/** Whether the process of `incarnation` is certainly dead (see {@link incarnationLiveness}). */
export async function isIncarnationDead(incarnation: string, root: string = tmpdir()): Promise<boolean> {
  return (await incarnationLiveness(incarnation, root)) === 'dead';
}

/** Removes this user's locks of dead processes older than a day; never follows a link, never another user's entry. */
async function sweepDeadLocks(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name === PROCESS_INCARNATION) continue;
    const lock = path.join(dir, name);
    if (!(await isOwnFolder(lock))) continue;
    const age = await lstat(lock).then(
      (s) => now - s.mtimeMs,
      () => 0,
    );
    if (age < SWEEP_AFTER_MS) continue;
    if (await isIncarnationDead(name, path.dirname(dir)).catch(() => false))
      await rm(lock, { recursive: true, force: true });
  }
}

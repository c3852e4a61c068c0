import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * A lock whose liveness comes from the kernel: an embedded LevelDB database, whose `LOCK` file LevelDB
 * holds with `fcntl(F_SETLK)`. The kernel drops that lock the moment the holding process dies (SIGKILL
 * included, before the process is even reaped), so a dead holder never blocks anyone, and no pid is
 * read, compared or trusted: a pid that still exists (an unreaped zombie, a container whose init never
 * reaps) or that was reused proves nothing here.
 *
 * POSIX record locks belong to the process, and closing ANY descriptor of the file releases them all,
 * so this process must never open a lock it already holds (LevelDB would open, fail, close, and silently
 * drop the lock). Locks held here are therefore tracked in-process, and asked about without touching
 * the file.
 */
const heldHere = new Set<string>();

export interface HeldKernelLock {
  readonly dir: string;
  release(): Promise<void>;
}

/** Why a lock could not be taken: held by a live process (maybe this one), or the folder failed. */
export type KernelLockResult = { held: true; byThisProcess: boolean } | { held: false; lock: HeldKernelLock };

const isLocked = (error: unknown): boolean => {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'LEVEL_LOCKED') return true;
  }
  return false;
};

/**
 * Takes the lock in `dir` (created if missing), or reports that a live process holds it. Any other
 * failure (permissions, a full disk, a folder that is not a lock) is thrown with its cause.
 */
export async function tryKernelLock(dir: string): Promise<KernelLockResult> {
  const key = path.resolve(dir);
  if (heldHere.has(key)) return { held: true, byThisProcess: true };
  heldHere.add(key); // before the first await: a second caller in this process must not open it too
  try {
    await mkdir(key, { recursive: true });
    const { ClassicLevel } = await import('classic-level');
    const db = new ClassicLevel(key);
    await db.open();
    let released: Promise<void> | undefined;
    return {
      held: false,
      lock: {
        dir: key,
        release() {
          released ??= db.close().finally(() => heldHere.delete(key));
          return released;
        },
      },
    };
  } catch (error) {
    heldHere.delete(key);
    if (isLocked(error)) return { held: true, byThisProcess: false };
    throw error;
  }
}

/** Whether a live process (this one included) holds the lock in `dir`; a missing folder is not held. */
export async function isKernelLockHeld(dir: string): Promise<boolean> {
  const key = path.resolve(dir);
  if (heldHere.has(key)) return true;
  if (!existsSync(path.join(key, 'LOCK'))) return false;
  const result = await tryKernelLock(key);
  if (result.held) return true;
  await result.lock.release();
  return false;
}

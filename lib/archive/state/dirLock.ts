import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { ArchiverError, tryKernelLock } from '../../foundation/index.ts';

/** The kernel lock of a state folder (a LevelDB database of its own, beside the state's). */
export const DIR_LOCK = 'run-lock';
/** Who took the lock, for the message a second run prints; informative only, never used to judge liveness. */
const HOLDER_FILE = 'holder.json';
const HELD_RETRIES = 10;
const HELD_RETRY_MS = 100;

interface Holder {
  pid: number;
  host: string;
  since: string;
  argv: string;
}

/**
 * Claims `dir` for this process. An embedded LevelDB cannot be shared between processes (the second one
 * crashes on its first request), so a second archiver on the same folder must fail early with a message
 * a person can act on. Liveness comes from the kernel ({@link tryKernelLock}): the lock of a killed run
 * is gone the moment it dies, so the next run starts at once. The message names the holder (pid, host,
 * start, command line); any other failure to take the lock keeps its cause. Returns the release function.
 */
export async function lockDir(dir: string): Promise<() => Promise<void>> {
  const lockDirPath = path.join(dir, DIR_LOCK);
  let result: Awaited<ReturnType<typeof tryKernelLock>>;
  try {
    result = await tryKernelLock(lockDirPath);
    // A holder being killed is gone for the kernel only once its last thread has exited (its pid may
    // already show as a zombie): a few short retries let such a lock go before it is called "in use".
    for (let retry = 0; result.held && !result.byThisProcess && retry < HELD_RETRIES; retry++) {
      await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
      result = await tryKernelLock(lockDirPath);
    }
  } catch (cause) {
    throw new ArchiverError(
      'STORE_FAILED',
      `cannot lock the state folder ${dir}: ${(cause as Error).message}${(cause as Error).cause ? ` (${((cause as Error).cause as Error).message})` : ''}`,
      { cause, retryable: false, details: { dir } },
    );
  }
  if (result.held) {
    const holder = await readHolder(lockDirPath);
    const who = result.byThisProcess
      ? 'this very process (another run in it has the folder open)'
      : holder
        ? `pid ${holder.pid} on ${holder.host}, since ${holder.since} (${holder.argv})`
        : 'a live process';
    throw new ArchiverError(
      'LEASE_HELD',
      `state folder ${dir} is in use by another tunnel-archiver: ${who}; wait for it to finish or stop it`,
      { details: { dir, ...(holder ? { pid: holder.pid, host: holder.host } : {}) } },
    );
  }
  const holder: Holder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    argv: process.argv
      .slice(1)
      .map((a) => path.basename(a))
      .join(' '),
  };
  await writeFile(path.join(lockDirPath, HOLDER_FILE), JSON.stringify(holder)).catch(() => undefined);
  return () => result.lock.release();
}

async function readHolder(lockDirPath: string): Promise<Holder | undefined> {
  try {
    return JSON.parse(await readFile(path.join(lockDirPath, HOLDER_FILE), 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

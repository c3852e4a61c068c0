import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../errors/archiverError.ts';

const LOCK_FILE = 'tunnel-archiver.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims `dir` for this process with a pid file. An embedded LevelDB cannot be shared between
 * processes (the second one crashes on its first request), so a second archiver on the same folder
 * must fail early with a message a person can act on. A lock left by a dead process is taken over.
 * Returns the release function.
 */
export async function lockDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  // Written aside then hard-linked in: the lock file appears atomically, never empty.
  const mine = `${file}.${process.pid}`;
  await writeFile(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(mine, file);
        return async () => {
          await unlink(file).catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const pid = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw new ArchiverError(
          'LEASE_HELD',
          `state folder ${dir} is in use by another tunnel-archiver (pid ${pid}); wait for it to finish or stop it`,
          { details: { dir, pid } },
        );
      }
      // Left by a process that died: remove it and race for it again.
      await unlink(file).catch(() => undefined);
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
  throw new ArchiverError('LEASE_HELD', `cannot lock state folder ${dir}: another process keeps taking it`);
}

import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const PREFIX = 'tunnel-archiver-';
const OWNER_FILE = 'owner.pid';

/** Whether a process with this pid exists on this host (EPERM: it exists but is someone else's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes this run's private temp folder (`<root>/tunnel-archiver-<runId>`, mode 0700, with the owner's pid)
 * after removing the folders of runs whose process is dead: spills and half-written Parquet of a killed
 * run never pile up. Returns the folder and the number of leftovers removed.
 */
export async function makeRunTmpDir(root: string, runId: string): Promise<{ dir: string; removed: number }> {
  await mkdir(root, { recursive: true });
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    const pid = Number.parseInt(await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => ''), 10);
    if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) && pid !== process.pid) continue;
    if (Number.isInteger(pid) && pid === process.pid) continue; // another run of this process (tests)
    await rm(dir, { recursive: true, force: true });
    removed++;
  }
  const dir = join(root, `${PREFIX}${runId}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, OWNER_FILE), String(process.pid), { mode: 0o600 });
  return { dir, removed };
}

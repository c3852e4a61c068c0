import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isOwnFolder } from './privateTmpDir.ts';
import { type IncarnationLiveness, PROCESS_INCARNATION } from './processIncarnation.ts';

const PREFIX = 'tunnel-archiver-';
const OWNER_FILE = 'owner.pid';
/** This process incarnation: a restarted process may get the same pid (a Lambda sandbox), never this id. */
const INCARNATION = PROCESS_INCARNATION;

/** Whether a process with this pid exists on this host (EPERM: it exists but is someone else's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Liveness where no kernel lock is read: every owner is judged by its pid alone. */
const pidOnly: IncarnationLiveness = async () => 'unknown';

/**
 * Makes this run's private temp folder (`<root>/tunnel-archiver-<runId>`, mode 0700, with the owner's pid
 * and process incarnation) after removing the folders of runs whose process is dead (or an earlier
 * incarnation of a reused pid): spills and half-written Parquet of a killed run never pile up. Folders
 * without an owner file, links, and other users' folders are left alone. `liveness` is the kernel's word on an owner (the CLI passes
 * `incarnationLiveness`); without it, an owner is judged by its pid. Returns the folder and the number
 * of leftovers removed.
 */
export async function makeRunTmpDir(
  root: string,
  runId: string,
  liveness: IncarnationLiveness = pidOnly,
): Promise<{ dir: string; removed: number }> {
  await mkdir(root, { recursive: true });
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    // Only this user's real folders are judged: never a link, never another user's run.
    if (!(await isOwnFolder(dir))) continue;
    const [pidText, incarnation] = (await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => '')).split(' ');
    const pid = Number.parseInt(pidText ?? '', 10);
    if (!Number.isInteger(pid) || pid <= 0) continue; // not ours to judge (no owner file)
    const ours = incarnation === INCARNATION; // another run of this process
    // The kernel decides where the owner took a liveness lock (a CLI run); else, as a fallback (a Lambda
    // sandbox holds none), whether its pid still exists.
    const said = await liveness(incarnation ?? '');
    const otherLive = said === 'alive' || (said === 'unknown' && pid !== process.pid && isProcessAlive(pid));
    if (ours || otherLive) continue;
    await rm(dir, { recursive: true, force: true });
    removed++;
  }
  const dir = join(root, `${PREFIX}${runId}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, OWNER_FILE), `${process.pid} ${INCARNATION}`, { mode: 0o600 });
  return { dir, removed };
}

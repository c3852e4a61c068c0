import { cliKeysDir, runCli } from '../../devkit/runCli.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

/** The instant the emulator's archive is made at (its clock, the archiver's and detect's). */
export const ARCHIVE_NOW = '2026-11-20T12:00:00Z';
export const ARCHIVE_DAYS = ['2026-11-19', '2026-11-20'] as const;

/**
 * The emulator's archive as a user makes it: `start` (the embedded emulator, two days) then `detect`,
 * in `dir/archive`, with a fixed clock. Fails the test when either command fails.
 */
export async function emulatorArchive(dir: string): Promise<string> {
  const dest = `${dir}/archive`;
  const env = { TMPDIR: dir };
  const now = ['--now', ARCHIVE_NOW];
  const start = await runCli(
    ['start', '--dest', dest, '--quiet', '--days', ARCHIVE_DAYS.join(','), ...now],
    env,
  );
  if (start.code !== 0) throw new Error(`start failed: ${start.stderr}`);
  const detect = await runCli(['detect', '--dest', dest, '--json', ...now], env);
  if (detect.code !== 0) throw new Error(`detect failed: ${detect.stderr}`);
  return dest;
}

/**
 * Closes the archive hour of `emulatorArchive` (12:00) as a later scheduled run would: a digest at 13:05,
 * signed with the archive's own key (where the CLI made it: the per-user keys folder). The Security Lake
 * export sends only complete archive hours.
 */
export async function closeArchiveHour(archive: string): Promise<void> {
  await appendDigest(
    {
      objects: createFileObjectStore(archive),
      signer: (await loadLocalKeys(cliKeysDir(archive))).signer,
      clock: new ManualClock('2026-11-20T13:05:00Z'),
      logger: silentLogger,
    },
    { runId: 'a-later-run', scans: [] },
  );
}

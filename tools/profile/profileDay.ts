/**
 * `node bin/run-ts.js tools/profile/profileDay.ts [records | backfill:<scale>]`: archives one day of `records` (default 100k), or a 60-day backfill, under
 * `node --cpu-prof` and prints, for each thread (the main thread, then the encoding worker when one ran),
 * its time by stage of the walk (`stageCosts`), and the top self-time costs by file and by function, as
 * JSON lines.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startReplayServer } from '../../bench/replayServer.ts';
import { flatDayDataset, scaledDataset } from '../../bench/scaledDataset.ts';
import { startEmulator } from '../../lib/archive/emulator/startEmulator.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { byFile, byFunction, stageCosts, stageOfNode, topCosts } from './topCosts.ts';

// `backfill:<scale>` profiles the 60-day backfill of `scaledDataset(scale)` (57: the bench's ~1M) instead of one day.
const arg = process.argv[2] ?? '100000';
const backfillScale = arg.startsWith('backfill:') ? Number(arg.slice('backfill:'.length)) : undefined;
const records = backfillScale === undefined ? Number(arg) : undefined;
const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-prof-'));
const emulator = await startEmulator({
  seed: 5,
  dataset: backfillScale === undefined ? flatDayDataset(records ?? 100_000) : scaledDataset(backfillScale),
  maxPageSize: 2000,
  faults: { stableOrder: true },
});
try {
  const today = toDay(new Date());
  const days = backfillScale === undefined ? [addDays(today, -3)] : dayRange(addDays(today, -59), today);
  // Pages served from memory, as in bench/run.ts: the profile then shows the archiver, not the emulator.
  const replay = await startReplayServer(emulator.url, days, { pageSize: 2000, concurrency: 2 });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      runTs,
      fileURLToPath(new URL('../../bench/archiverChild.ts', import.meta.url)),
      JSON.stringify({ url: replay.url, ...(backfillScale === undefined ? { onlyDays: days } : {}) }),
    ],
    { maxBuffer: 1 << 24, env: { ...process.env, PAGE_SIZE: '2000' } },
  );
  await replay.close();
  console.log(
    JSON.stringify({
      bench: 'profile',
      dataset: arg,
      run: JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'),
    }),
  );
  // One profile a thread: `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`, the main thread's is 0.
  const threadOf = (f: string) => Number(f.split('.').at(-3));
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error('no .cpuprofile written');
  for (const file of files.sort((a, b) => threadOf(a) - threadOf(b))) {
    const thread = threadOf(file) === 0 ? 'main' : `worker ${threadOf(file)}`;
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8'));
    const line = (by: string, cost: object) => console.log(JSON.stringify({ thread, by, ...cost }));
    for (const cost of stageCosts(profile)) line('stage', cost);
    const stageOf = stageOfNode(profile);
    for (const cost of topCosts(profile, byFunction, 15, (id) => stageOf(id) === 'other'))
      line('other stage, function', cost);
    for (const cost of topCosts(profile, byFile, 15)) line('file', cost);
    for (const cost of topCosts(profile, byFunction, 30)) line('function', cost);
  }
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}

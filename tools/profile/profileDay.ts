/**
 * `node bin/run-ts.js tools/profile/profileDay.ts [records | backfill:<scale>]`: archives one day of `records`
 * (default 100k), or a 60-day backfill (`startReplayedDataset`), under
 * `node --cpu-prof` and prints, for each thread (the main thread, then the encoding worker when one ran),
 * its time by stage of the walk (`stageCosts`), and the top self-time costs by file and by function, as
 * JSON lines. `PROFILE_KEEP=<dir>` keeps the `.cpuprofile` files there.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchChildRun } from './benchChild.ts';
import { startReplayedDataset } from './replayedDataset.ts';
import { byFile, byFunction, stageCosts, stageOfNode, topCosts } from './topCosts.ts';

const arg = process.argv[2] ?? '100000';
const keep = process.env.PROFILE_KEEP;
const dir = keep ?? (await mkdtemp(join(tmpdir(), 'ta-bench-prof-')));
const data = await startReplayedDataset(arg);
try {
  const { result } = await benchChildRun<object>(
    'bench/archiverChild.ts',
    JSON.parse(data.archiverArgs) as object,
    {},
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  console.log(JSON.stringify({ bench: 'profile', dataset: arg, run: result }));
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
  await data.close();
  if (!keep) await rm(dir, { recursive: true, force: true });
}

/**
 * `node bin/run-ts.js tools/profile/profileBigDay.ts [rows,latencyMs,pageRows,cpuShare]`: the `big-day` walk
 * (bench/bigDay.ts, default 30,000 rows at 40 ms, 100-row pages, 0.58 of a core) with every run under
 * `node --cpu-prof`; prints each run's figures, then for each run and thread its time by stage of the walk
 * and the top self-time costs by function, then the walk's window alone (from its first to its last fetch sample)
 * as CPU ms a page by stage and by function with the caller of ours that asked for it (each sample's time
 * capped near one sampling interval, `cpuTimed`, so time spent throttled is not charged), as JSON lines.
 * `PROFILE_KEEP=<dir>` keeps the `.cpuprofile` files there.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigDay } from '../../bench/bigDay.ts';
import {
  byCaller,
  byFile,
  byFunction,
  cpuTimed,
  slice,
  stageCosts,
  stageOfNode,
  topCosts,
  windowOf,
} from './topCosts.ts';

const [rows, latencyMs, pageRows, share] = (process.argv[2] ?? '30000,40,100,0.58').split(',').map(Number);
const top = Number(process.argv[3] ?? 25);
const keep = process.env.PROFILE_KEEP;
const dir = keep ?? (await mkdtemp(join(tmpdir(), 'ta-prof-bigday-')));
try {
  const r = await bigDay({
    name: 'profile',
    rows: rows ?? 30_000,
    latencyMs: latencyMs ?? 40,
    pageRows: pageRows ?? 100,
    ...(share ? { cpuShare: share } : {}),
    profileDir: dir,
    // `PROFILE_RUNTIME=local`: each run on this Node, as the CLI runs here (default: as the Lambda runs).
    ...(process.env.PROFILE_RUNTIME === 'local' ? { runtime: 'local' } : {}),
    ...(process.env.PARQUET_ENCODER === 'inline' || process.env.PARQUET_ENCODER === 'worker'
      ? { encoder: process.env.PARQUET_ENCODER }
      : {}),
  });
  const { runs, ...rest } = r;
  console.log(JSON.stringify(rest));
  for (const [n, run] of runs.entries()) {
    console.log(JSON.stringify({ run: n, ...run }));
    const runDir = join(dir, `run-${n}`);
    const threadOf = (f: string) => Number(f.split('.').at(-3));
    const files = (await readdir(runDir)).filter((f) => f.endsWith('.cpuprofile'));
    for (const file of files.sort((a, b) => threadOf(a) - threadOf(b))) {
      const thread = threadOf(file) === 0 ? 'main' : `worker ${threadOf(file)}`;
      const profile = JSON.parse(await readFile(join(runDir, file), 'utf8'));
      for (const cost of stageCosts(profile))
        console.log(JSON.stringify({ run: n, thread, by: 'stage', ...cost }));
      const line = (by: string, cost: object) => console.log(JSON.stringify({ run: n, thread, by, ...cost }));
      const stageOf = stageOfNode(profile);
      for (const cost of topCosts(profile, byFunction, top, (id) => stageOf(id) === 'other'))
        line('other stage, function', cost);
      for (const cost of topCosts(profile, byFile, top)) line('file', cost);
      for (const cost of topCosts(profile, byFunction, top)) line('function', cost);
      // The walk's window (first to last fetch sample): CPU ms a page by stage while pages are fetched.
      const window = windowOf(profile);
      if (!window || run.pagesThisRun === 0) continue;
      // CPU-like: each sample capped near one interval (the quota's throttled time is not a stage's cost).
      const walk = cpuTimed(slice(profile, window.first, window.last));
      const perPage = (ms: number) => Math.round((ms / run.pagesThisRun) * 100) / 100;
      let busy = 0;
      for (const cost of stageCosts(walk)) {
        if (cost.name !== '(idle)') busy += cost.ms;
        line('walk stage a page', { name: cost.name, msPerPage: perPage(cost.ms), share: cost.share });
      }
      line('walk busy a page', {
        windowMs: Math.round(window.ms),
        busyCpuMs: busy,
        msPerPage: perPage(busy),
      });
      for (const cost of byCaller(walk, top))
        line('walk function ← caller', { ...cost, msPerPage: perPage(cost.ms) });
    }
  }
} finally {
  if (!keep) await rm(dir, { recursive: true, force: true });
}

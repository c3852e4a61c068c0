/**
 * `node bin/run-ts.js tools/profile/abBackfill.ts <backfill:<scale> | day:<records>> <runs> <repoA> <repoB>`: the
 * 60-day backfill of `scaledDataset(scale)` (57: the bench's ~1M), or one day of `records`, replayed from memory,
 * archived by `bench/archiverChild.ts` of two checkouts in turn (A, B, A, B, ...), each in its own process;
 * prints each run's seconds, CPU seconds and peak RSS, then the medians.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startReplayServer } from '../../bench/replayServer.ts';
import { flatDayDataset, scaledDataset } from '../../bench/scaledDataset.ts';
import { startEmulator } from '../../lib/archive/emulator/startEmulator.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';

const [dataset = 'backfill:57', runs = '3', ...repos] = process.argv.slice(2);
const [kind, size] = dataset.split(':');
const oneDay = kind === 'day';
const emulator = await startEmulator({
  seed: 5,
  dataset: oneDay ? flatDayDataset(Number(size)) : scaledDataset(Number(size)),
  maxPageSize: 2000,
  faults: { stableOrder: true },
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
try {
  const today = toDay(new Date());
  const days = oneDay ? [addDays(today, -3)] : dayRange(addDays(today, -59), today);
  const replay = await startReplayServer(emulator.url, days, {
    pageSize: 2000,
    concurrency: 2,
  });
  const figures = new Map<string, { s: number[]; cpu: number[]; rss: number[] }>(
    repos.map((r) => [r, { s: [], cpu: [], rss: [] }]),
  );
  for (let i = 0; i < Number(runs); i++) {
    for (const repo of repos) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          join(repo, 'bin/run-ts.js'),
          join(repo, 'bench/archiverChild.ts'),
          JSON.stringify({ url: replay.url, ...(oneDay ? { onlyDays: days } : {}) }),
        ],
        { maxBuffer: 1 << 24, env: { ...process.env, PAGE_SIZE: '2000' }, cwd: repo },
      );
      const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        seconds: number;
        cpuSeconds: number;
        records: number;
        peakRssMiB: number;
      };
      figures.get(repo)?.s.push(r.seconds);
      figures.get(repo)?.cpu.push(r.cpuSeconds);
      figures.get(repo)?.rss.push(r.peakRssMiB);
      console.log(
        JSON.stringify({
          repo,
          run: i,
          seconds: r.seconds,
          cpuSeconds: r.cpuSeconds,
          peakRssMiB: r.peakRssMiB,
          records: r.records,
        }),
      );
    }
  }
  for (const [repo, f] of figures)
    console.log(
      JSON.stringify({
        repo,
        medianSeconds: median(f.s),
        medianCpuSeconds: median(f.cpu),
        peakRssMiB: Math.max(...f.rss),
      }),
    );
  await replay.close();
} finally {
  await emulator.close();
}

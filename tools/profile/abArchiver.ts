/**
 * `node bin/run-ts.js tools/profile/abArchiver.ts <day:<records> | backfill:<scale>> <runs> <repoA> <repoB>`: the
 * dataset (`startReplayedDataset`) archived by `bench/archiverChild.ts` of two checkouts in turn (A, B, A, B, ...),
 * each in its own process, so that the machine's moment falls on both alike; prints each run's seconds, CPU
 * seconds and peak RSS, then each checkout's medians and highest peak.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median } from '../../bench/median.ts';
import { startReplayedDataset } from './replayedDataset.ts';

const [dataset = 'backfill:57', runs = '3', ...repos] = process.argv.slice(2);
const data = await startReplayedDataset(dataset);
try {
  const figures = new Map<string, { s: number[]; cpu: number[]; rss: number[] }>(
    repos.map((r) => [r, { s: [], cpu: [], rss: [] }]),
  );
  for (let i = 0; i < Number(runs); i++) {
    for (const repo of repos) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(repo, 'bin/run-ts.js'), join(repo, 'bench/archiverChild.ts'), data.archiverArgs],
        { maxBuffer: 1 << 24, env: { ...process.env, PAGE_SIZE: '2000' }, cwd: repo },
      );
      const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        seconds: number;
        cpuSeconds: number;
        records: number;
        pages: number;
        peakRssMiB: number;
      };
      const f = figures.get(repo);
      f?.s.push(r.seconds);
      f?.cpu.push(r.cpuSeconds);
      f?.rss.push(r.peakRssMiB);
      // Pages as well as records: a run that walked other pages than its pair did is not comparable.
      const { seconds, cpuSeconds, peakRssMiB, records, pages } = r;
      console.log(JSON.stringify({ repo, run: i, seconds, cpuSeconds, peakRssMiB, records, pages }));
    }
  }
  for (const [repo, f] of figures) {
    const figure = {
      medianSeconds: median(f.s),
      medianCpuSeconds: median(f.cpu),
      peakRssMiB: Math.max(...f.rss),
    };
    console.log(JSON.stringify({ repo, ...figure }));
  }
} finally {
  await data.close();
}

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
  // What the replay recorded: a run that walks more pages than this asked for pages the recording lacks.
  console.log(JSON.stringify({ recordedPages: data.replay.pages, days: data.days.length }));
  const figures = new Map<string, { s: number[]; cpu: number[]; rss: number[] }>(
    repos.map((r) => [r, { s: [], cpu: [], rss: [] }]),
  );
  for (let i = 0; i < Number(runs); i++) {
    for (const repo of repos) {
      const requestsBefore = data.replay.requests().historyPages;
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
        bytes: number;
        peakRssMiB: number;
      };
      const f = figures.get(repo);
      f?.s.push(r.seconds);
      f?.cpu.push(r.cpuSeconds);
      f?.rss.push(r.peakRssMiB);
      // Pages as well as records: a run that walked other pages than its pair did is not comparable.
      // Bytes written too: a change of encoding or compression is weighed by its size as well as its time.
      const { seconds, cpuSeconds, peakRssMiB, records, pages, bytes } = r;
      const requests = data.replay.requests().historyPages - requestsBefore;
      console.log(
        JSON.stringify({ repo, run: i, seconds, cpuSeconds, peakRssMiB, records, pages, requests, bytes }),
      );
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

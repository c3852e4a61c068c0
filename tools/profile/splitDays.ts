/**
 * `node bin/run-ts.js tools/profile/splitDays.ts [rounds] [splits]`: how far running the backfill's days in
 * parallel, with every record's whole work on the core that owns its day, could take the archiver. The 1M
 * backfill (`startReplayedDataset('backfill:57')`) is archived, each round in turn, by:
 * - the script a user would write (`bench/scriptChild.ts`), for the ratio;
 * - one archiver process with the encoding worker (`PARQUET_ENCODER=worker`, the default), then inline;
 * - for each N of `splits` (comma-separated, default `2,3`), N inline archiver processes at once, each given
 *   every Nth day (`onlyDays`), into archives of their own: separate processes stand for threads that each
 *   own whole days (each its own heap, as a worker thread has), with no hand-over between them.
 * Each line: the run's seconds (the slowest process's own, for a split), CPU seconds (summed), records, and
 * the ratio to the same round's script.
 */
import { benchChild } from './benchChild.ts';
import { startReplayedDataset } from './replayedDataset.ts';

interface RunLine {
  seconds: number;
  cpuSeconds: number;
  records: number;
}

const rounds = Number(process.argv[2] ?? 2);
const splits = (process.argv[3] ?? '2,3').split(',').map(Number);
const data = await startReplayedDataset('backfill:57');
const { url } = JSON.parse(data.archiverArgs) as { url: string };
const days = data.days;

const round2 = (n: number) => Math.round(n * 100) / 100;

try {
  for (let i = 0; i < rounds; i++) {
    const script = await benchChild<{ seconds: number }>('bench/scriptChild.ts', {
      url,
      days,
      pageSize: 2000,
      concurrency: 2,
    });
    console.log(JSON.stringify({ round: i, run: 'script', seconds: round2(script.seconds) }));
    const line = (run: string, r: RunLine) =>
      console.log(
        JSON.stringify({
          round: i,
          run,
          seconds: round2(r.seconds),
          cpuSeconds: round2(r.cpuSeconds),
          records: r.records,
          ratio: round2(r.seconds / script.seconds),
        }),
      );
    for (const encoder of ['worker', 'inline']) {
      line(
        encoder,
        await benchChild<RunLine>('bench/archiverChild.ts', { url }, { PARQUET_ENCODER: encoder }),
      );
    }
    for (const n of splits) {
      const parts = Array.from({ length: n }, (_, k) => days.filter((_, j) => j % n === k));
      const runs = await Promise.all(
        parts.map((onlyDays) =>
          benchChild<RunLine>('bench/archiverChild.ts', { url, onlyDays }, { PARQUET_ENCODER: 'inline' }),
        ),
      );
      line(`${n} inline processes`, {
        seconds: Math.max(...runs.map((r) => r.seconds)),
        cpuSeconds: runs.reduce((sum, r) => sum + r.cpuSeconds, 0),
        records: runs.reduce((sum, r) => sum + r.records, 0),
      });
    }
  }
} finally {
  await data.close();
}

/**
 * `node bin/run-ts.js tools/profile/gcCost.ts [dataset] [runs] [variant ...]`: what V8's collector costs an
 * archiving run on every thread it uses, which a CPU profile does not show: `--cpu-prof` puts a thread's
 * pauses in `(garbage collector)`, but not the collector's helper threads (parallel scavenging, concurrent
 * marking and sweeping), whose time counts in the process's CPU all the same. The dataset
 * (`startReplayedDataset`, default `backfill:57`) is archived by `bench/archiverChild.ts` under
 * `--trace-gc-nvp` once per run and variant, variants interleaved. A variant is `name` or
 * `name:KEY=value,--flag=value` (environment for the child, such as `PARQUET_ENCODER=inline` or
 * `ROW_GROUP_SIZE=1024`, and Node's flags, such as `--max-semi-space-size=32`); default `worker:PARQUET_ENCODER=worker inline:PARQUET_ENCODER=inline`. Each line: the
 * run's seconds and CPU seconds, then per isolate (the main thread first) its collections, pauses, helper
 * threads' time, and the megabytes it allocated and promoted to the old generation, and the collector's
 * share of the run's CPU.
 */
import { benchChildRun } from './benchChild.ts';
import { gcTrace } from './gcTrace.ts';
import { startReplayedDataset } from './replayedDataset.ts';

const [dataset = 'backfill:57', runs = '1', ...given] = process.argv.slice(2);
const variants = (
  given.length ? given : ['worker:PARQUET_ENCODER=worker', 'inline:PARQUET_ENCODER=inline']
).map((spec) => {
  const [name = spec, settings = ''] = spec.split(':');
  const entries = settings.split(',').filter(Boolean);
  const env = Object.fromEntries(
    entries.filter((e) => !e.startsWith('--')).map((kv) => kv.split('=') as [string, string]),
  );
  return { name, env, flags: entries.filter((e) => e.startsWith('--')) };
});
const data = await startReplayedDataset(dataset);
const args = JSON.parse(data.archiverArgs) as object;
const round = (n: number) => Math.round(n * 100) / 100;
try {
  for (let i = 0; i < Number(runs); i++) {
    for (const { name, env, flags } of variants) {
      const { result, stdout } = await benchChildRun<{
        seconds: number;
        cpuSeconds: number;
        records: number;
        peakRssMiB: number;
      }>('bench/archiverChild.ts', args, env, ['--trace-gc-nvp', ...flags]);
      const isolates = gcTrace(stdout);
      const gcSeconds = isolates.reduce((s, g) => s + g.pauseMs + g.backgroundMs, 0) / 1000;
      console.log(
        JSON.stringify({
          run: i,
          variant: name,
          seconds: round(result.seconds),
          cpuSeconds: round(result.cpuSeconds),
          records: result.records,
          peakRssMiB: result.peakRssMiB,
          gcCpuSeconds: round(gcSeconds),
          gcShare: round(gcSeconds / result.cpuSeconds),
          isolates: isolates.map((g) => ({
            scavenges: g.scavenges,
            markCompacts: g.markCompacts,
            pauseS: round(g.pauseMs / 1000),
            helpersS: round(g.backgroundMs / 1000),
            allocatedMB: Math.round(g.allocatedBytes / 1e6),
            promotedMB: Math.round(g.promotedBytes / 1e6),
            promotedPerRecord: Math.round(g.promotedBytes / Math.max(1, result.records)),
          })),
        }),
      );
    }
  }
} finally {
  await data.close();
}

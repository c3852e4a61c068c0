/**
 * `node bin/run-ts.js tools/profile/bigDayShares.ts [rows,latencyMs] [share:encoder[:runtime],...]`: the
 * `big-day` walk (bench/bigDay.ts: runs of 6 s of the CLI's bundle against a replaying server, 100-row pages)
 * once for each CPU share, encoder and runtime given (default `0.58:inline,1:inline`; `worker` or `inline` is
 * `PARQUET_ENCODER`; the runtime is `lambda`, the default, the Lambda's Node with no flag, or `local`, this
 * Node as the CLI runs here: `bigDayRuntime`), one after the other on the same machine, and prints one JSON line each: every run's
 * ratio to the latency bound, the longest pause between two of the walk's requests and when it began, CPU
 * ms a page, pages a second, the time the quota held the run back, and the load average. The Lambda's bundle
 * has no worker entry (`lib/archive/parquet/parquetWorkerClient.ts`): it encodes inline, whatever its memory.
 */
import { bigDay } from '../../bench/bigDay.ts';

const [rows, latencyMs] = (process.argv[2] ?? '100000,40').split(',').map(Number);
const cases = (process.argv[3] ?? '0.58:inline,1:inline').split(',').map((c) => {
  const [share, encoder, node] = c.split(':');
  if (encoder !== 'worker' && encoder !== 'inline') throw new Error(`not an encoder: '${encoder}'`);
  if (node !== undefined && node !== 'lambda' && node !== 'local')
    throw new Error(`not a runtime: '${node}'`);
  return { share: Number(share), encoder, runtime: node ?? 'lambda' } as const;
});
for (const { share, encoder, runtime } of cases) {
  const r = await bigDay({
    name: `shares-${share}-${encoder}`,
    rows: rows ?? 100_000,
    latencyMs: latencyMs ?? 40,
    cpuShare: share,
    encoder,
    runtime,
  });
  console.log(
    JSON.stringify({
      share,
      encoder,
      runtime,
      node: r.node,
      ...(r.unconstrained ? { unconstrained: r.unconstrained } : {}),
      boundRuns: r.boundRuns,
      runs: r.runs.length,
      minResumedRatio: r.minResumedRatio,
      ...(r.cpuFit ? { cpuFit: r.cpuFit } : {}),
      perRun: r.runs.map((x) => ({
        ratio: x.ratio === undefined ? 'done' : Number(x.ratio.toFixed(2)),
        resumed: x.resumed,
        longestPauseMs: Math.round(x.longestPauseMs),
        pauseAtMs: x.longestPauseAtMs,
        cpuMsPerPage: Number(x.cpuMsPerPage.toFixed(1)),
        pagesPerSecond: Number(x.pagesPerSecond.toFixed(1)),
        throttledMs: x.throttledMs,
        load: Number(x.load.toFixed(2)),
      })),
    }),
  );
}

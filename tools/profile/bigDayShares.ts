/**
 * `node bin/run-ts.js tools/profile/bigDayShares.ts [rows,latencyMs] [share:encoder,...]`: the `big-day` walk
 * (bench/bigDay.ts: runs of 6 s of the CLI's bundle against a replaying server, 100-row pages) once for each
 * CPU share and encoder given (default `0.58:worker,0.58:inline,1:worker,1:inline`; `worker` or `inline` is
 * `PARQUET_ENCODER`), one after the other on the same machine, and prints one JSON line each: every run's
 * ratio to the latency bound, the longest pause between two of the walk's requests and when it began, CPU
 * ms a page, pages a second, the time the quota held the run back, and the load average. The Lambda's bundle
 * has no worker entry (`lib/archive/parquet/parquetWorkerClient.ts`): it encodes inline, whatever its memory.
 */
import { bigDay } from '../../bench/bigDay.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';

const [rows, latencyMs] = (process.argv[2] ?? '100000,40').split(',').map(Number);
const cases = (process.argv[3] ?? '0.58:worker,0.58:inline,1:worker,1:inline').split(',').map((c) => {
  const [share, encoder, node] = c.split(':');
  if (encoder !== 'worker' && encoder !== 'inline') throw new Error(`not an encoder: '${encoder}'`);
  if (node !== undefined && node !== 'lambda') throw new Error(`not a runtime: '${node}'`);
  return { share: Number(share), encoder, lambda: node === 'lambda' } as const;
});
for (const { share, encoder, lambda } of cases) {
  const r = await bigDay({
    name: `shares-${share}-${encoder}`,
    rows: rows ?? 100_000,
    latencyMs: latencyMs ?? 40,
    cpuShare: share,
    encoder,
    // The Lambda's Node, with no flag of the CLI's (the function is started without them).
    ...(lambda ? { node: LAMBDA_NODE, nodeFlags: [] } : {}),
  });
  console.log(
    JSON.stringify({
      share,
      encoder,
      ...(lambda ? { node: 'lambda' } : {}),
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

/** `npm run bench`: each benchmark in its own child process (clean heap), results as JSON lines. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));
const benches: string[][] = [
  ['bench/archiveRun.ts', '1'],
  ['bench/heavyDay.ts', process.env.BENCH_HEAVY_DAY ?? '20000,100000'],
  ['bench/parquetWrite.ts', process.env.BENCH_ROWS ?? '1000000', '100000'],
];
let failed = 0;
for (const args of benches) {
  const r = spawnSync(process.execPath, [runTs, ...args], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;

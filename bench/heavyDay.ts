/**
 * Memory on a heavy day: the emulator (this process) serves one day of N records; a child process archives
 * just that day and reports its peak RSS. Records spill to disk, so RSS should grow far slower than N.
 * Usage: node bin/run-ts.js bench/heavyDay.ts [N1,N2,...]
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { toDay } from '../lib/clock/day.ts';
import { DEFAULT_DATASET, dayProfile } from '../lib/emulator/dataset.ts';
import { startEmulator } from '../lib/emulator/startEmulator.ts';

const sizes = (process.argv[2] ?? '20000,100000').split(',').map(Number);
const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));
const now = new Date();
// BENCH_CHILD_HEAP_MIB caps the archiver's heap, to show the memory a heavy day really needs.
const _heapFlag = process.env.BENCH_CHILD_HEAP_MIB
  ? [`--max-old-space-size=${process.env.BENCH_CHILD_HEAP_MIB}`]
  : [];
for (const n of sizes) {
  const dataset = {
    ...DEFAULT_DATASET,
    heavyEveryDays: 1,
    heavyMin: n,
    heavyMax: n,
    minSessionMs: 60_000,
    maxSessionMs: 120_000,
    lateRate: 0,
  };
  const emulator = await startEmulator({
    seed: 5,
    dataset,
    maxPageSize: 2000,
    faults: { stableOrder: true },
  });
  const day = toDay(new Date(now.getTime() - 3 * 86_400_000));
  const expected = dayProfile(5, day, dataset).count;
  // Async: the emulator in this process must keep answering while the child runs.
  const child = await promisify(execFile)(
    process.execPath,
    [runTs, 'bench/heavyDayChild.ts', emulator.url, day],
    {
      maxBuffer: 1 << 24,
    },
  );
  await emulator.close();
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
  console.log(JSON.stringify({ bench: 'heavyDay', recordsOnDay: expected, ...result }));
}

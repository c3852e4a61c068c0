import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEmulator } from '../devkit/startEmulator.ts';
import { fixedClock } from '../lib/archive/emulator/emulatorClock.ts';
import { addDays, toDay } from '../lib/foundation/clock/day.ts';
import { startReplayServer } from './replayServer.ts';
import { flatDayDataset } from './scaledDataset.ts';

interface RunFigures {
  seconds: number;
  cpuSeconds: number;
  recordsNew: number;
  recordsSeen: number;
  pages: number;
}

/**
 * A rescan against the first walk of the same day (reported): a deployed archive walks each
 * day about ten times over its life (`RESCAN_AGES` and the final sweeps), and all but the first walk
 * meet records it holds already. CPU µs a record walked, of the archiver process, median of the runs.
 */
export interface RescanCost {
  records: number;
  runs: number;
  /** The day's first walk: every record new. */
  firstSeconds: number;
  firstCpuMicrosPerRecord: number;
  /** The same day asked for again: every record archived already, none written. */
  rescanSeconds: number;
  rescanCpuMicrosPerRecord: number;
  rescanNewRecords: number;
}

const PAGE_SIZE = 2000;
const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

export async function rescanCost(records: number, runs: number): Promise<RescanCost> {
  const emulator = await startEmulator({
    seed: 5,
    // Frozen: the replay records one snapshot of the day (`startReplayServer` refuses any other).
    clock: fixedClock(new Date()),
    dataset: flatDayDataset(records),
    maxPageSize: PAGE_SIZE,
    faults: { stableOrder: true },
  });
  try {
    const days = [addDays(toDay(new Date()), -3)];
    const replay = await startReplayServer(emulator.url, days, { pageSize: PAGE_SIZE, concurrency: 2 });
    try {
      const results: { first: RunFigures; rescan: RunFigures }[] = [];
      for (let i = 0; i < runs; i++) {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [runTs, 'bench/rescanChild.ts', JSON.stringify({ url: replay.url, onlyDays: days })],
          { maxBuffer: 1 << 24, env: { ...process.env, PAGE_SIZE: String(PAGE_SIZE) } },
        );
        results.push(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
      }
      const median = (pick: (r: (typeof results)[number]) => number) => {
        const sorted = results.map(pick).sort((a, b) => a - b);
        return sorted[Math.floor((sorted.length - 1) / 2)] as number;
      };
      const perRecord = (run: RunFigures) => (run.cpuSeconds * 1e6) / Math.max(1, run.recordsSeen);
      const round = (n: number) => Math.round(n * 100) / 100;
      return {
        records: (results[0] as (typeof results)[number]).first.recordsSeen,
        runs,
        firstSeconds: round(median((r) => r.first.seconds)),
        firstCpuMicrosPerRecord: round(median((r) => perRecord(r.first))),
        rescanSeconds: round(median((r) => r.rescan.seconds)),
        rescanCpuMicrosPerRecord: round(median((r) => perRecord(r.rescan))),
        rescanNewRecords: Math.max(...results.map((r) => r.rescan.recordsNew)),
      };
    } finally {
      await replay.close();
    }
  } finally {
    await emulator.close();
  }
}

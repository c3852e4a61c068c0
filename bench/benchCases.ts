/**
 * The bench's cases: for each, the fetch-and-parse BOUND and the ARCHIVER (a full local run in its own
 * process, peak RSS measured) against the same emulator data. `--quick` runs small stand-ins of them.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { LAMBDA_NODE } from '../devkit/lambdaNode.ts';
import { startEmulator } from '../devkit/startEmulator.ts';
import type { DatasetOptions } from '../lib/archive/emulator/dataset.ts';
import { fixedClock } from '../lib/archive/emulator/emulatorClock.ts';
import type { ParquetEncoder } from '../lib/archive/parquet/historyParquetFile.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/foundation/clock/day.ts';
import type { CaseResult } from './caseResult.ts';
import { cliNodeFlags } from './cliNodeFlags.ts';
import type { ColumnSizes } from './columnSizes.ts';
import { openCpuQuota } from './cpuQuota.ts';
import type { DuckdbRewrite } from './duckdbRewrite.ts';
import type { BoundResult } from './fetchBound.ts';
import type { IdealFetchResult } from './idealFetch.ts';
import { startReplayServer } from './replayServer.ts';
import { flatDayDataset, scaledDataset } from './scaledDataset.ts';
import type { ScriptResult } from './scriptChild.ts';
import { cpuFigures, scriptFigures } from './scriptFigures.ts';
import { shippedCpuShare } from './shippedCpuShare.ts';

export interface BenchCase {
  name: string;
  description: string;
  dataset: Partial<DatasetOptions>;
  /** Whole window (backfill) when absent; else just this day, three days back. */
  oneDay?: boolean;
  delayMs?: number;
  /** Targets: wall time ≤ ratio × bound, peak RSS ≤ MiB. */
  maxRatio?: number;
  maxRssMiB?: number;
  /** Also compare the archive's bytes with gzipped JSON lines of the same records. */
  size?: boolean;
  /** Run the archiver under the Lambda's Node (24, so ZSTD) instead of the Node running the bench. */
  lambdaNode?: boolean;
  /** `PARQUET_ENCODER` of the archiver (default: the config's default, worker). */
  encoder?: ParquetEncoder;
  /**
   * Also run the fetch-then-DuckDB script on the same pages, target: archiver ≤ ratio × script;
   * and, reported beside it, the same script giving every row the archive's two ids.
   */
  script?: { maxRatio?: number };
  /**
   * Also run the archiver (and the script, when the case has one) once more with its process in a CPU quota
   * of the share of a vCPU Lambda gives the stack's engine function (`shippedCpuShare`, `bench/cpuQuota.ts`).
   */
  atShare?: boolean;
}

/** Rows a page, and pages in flight, of every case. */
export const PAGE_SIZE = 2000;
export const CONCURRENCY = Number(process.env.PAGE_CONCURRENCY ?? 2);
const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/** 60 default days hold about 17,600 records, so scale 57 gives about a million. */
const MILLION_SCALE = 57;

/** The full cases. */
export const FULL: BenchCase[] = [
  {
    name: 'default-backfill',
    description: '60-day backfill, default dataset (size target)',
    dataset: {},
    size: true,
  },
  {
    name: 'default-backfill-node24',
    description: '60-day backfill, default dataset, Lambda Node 24 (size target, ZSTD)',
    dataset: {},
    size: true,
    lambdaNode: true,
  },
  {
    name: 'backfill-1M',
    description: '60-day backfill, ~1M records',
    dataset: scaledDataset(MILLION_SCALE),
    maxRatio: 1.3,
    maxRssMiB: 256,
    script: { maxRatio: 1.5 },
    atShare: true,
  },
  {
    name: 'day-100k',
    description: 'one 100k-record day',
    dataset: flatDayDataset(100_000),
    oneDay: true,
    maxRatio: 1.3,
    script: {},
  },
  {
    name: 'day-1M',
    description: 'one 1M-record day',
    dataset: flatDayDataset(1_000_000),
    oneDay: true,
    maxRssMiB: 256,
    script: {},
  },
  {
    name: 'backfill-1M-20ms',
    description: '60-day backfill, ~1M records, 20 ms per request',
    dataset: scaledDataset(MILLION_SCALE),
    delayMs: 20,
    maxRatio: 1.2,
  },
  {
    // Where latency, not CPU, decides, the work of a page must hide under the next fetches.
    name: 'day-100k-150ms',
    description: 'one 100k-record day, 150 ms per request (overlap)',
    dataset: flatDayDataset(100_000),
    oneDay: true,
    delayMs: 150,
    maxRatio: 1.1,
  },
  {
    name: 'backfill-1M-inline',
    description: '60-day backfill, ~1M records, PARQUET_ENCODER=inline',
    dataset: scaledDataset(MILLION_SCALE),
    maxRatio: 1.3,
    encoder: 'inline',
  },
  {
    name: 'day-100k-inline',
    description: 'one 100k-record day, PARQUET_ENCODER=inline',
    dataset: flatDayDataset(100_000),
    oneDay: true,
    maxRatio: 1.3,
    encoder: 'inline',
  },
  {
    name: 'day-1M-inline',
    description: 'one 1M-record day, PARQUET_ENCODER=inline',
    dataset: flatDayDataset(1_000_000),
    oneDay: true,
    encoder: 'inline',
  },
  // Node 24 (ZSTD), as a user on a current Node runs the CLI.
  {
    name: 'backfill-1M-node24',
    description: '60-day backfill, ~1M records, Node 24',
    dataset: scaledDataset(MILLION_SCALE),
    maxRssMiB: 256,
    lambdaNode: true,
    script: {},
  },
  {
    name: 'day-1M-node24',
    description: 'one 1M-record day, Node 24',
    dataset: flatDayDataset(1_000_000),
    oneDay: true,
    maxRssMiB: 256,
    lambdaNode: true,
  },
];

/** `--quick`: small stand-ins of the cases. */
export const QUICK: BenchCase[] = [
  {
    name: 'default-backfill',
    description: '60-day backfill, default dataset (size target)',
    dataset: {},
    size: true,
    maxRatio: 1.3,
  },
  {
    name: 'default-backfill-node24',
    description: '60-day backfill, default dataset, Lambda Node 24 (size target, ZSTD)',
    dataset: {},
    size: true,
    lambdaNode: true,
  },
  {
    name: 'day-20k',
    description: 'one 20k-record day (quick stand-in for 100k)',
    dataset: flatDayDataset(20_000),
    oneDay: true,
    maxRatio: 1.3,
    script: { maxRatio: 1.5 },
    atShare: true,
  },
  {
    name: 'default-backfill-20ms',
    description: '60-day backfill, default dataset, 20 ms per request',
    dataset: {},
    delayMs: 20,
    maxRatio: 1.2,
  },
];

type Wrap = (command: string, args: string[]) => [string, string[]];
const unwrapped: Wrap = (command, args) => [command, args];

async function child<T>(
  file: string,
  args: unknown,
  node = process.execPath,
  env: Record<string, string> = {},
  nodeFlags: readonly string[] = [],
  wrap: Wrap = unwrapped,
): Promise<T> {
  const { stdout } = await promisify(execFile)(
    ...wrap(node, [...nodeFlags, runTs, file, JSON.stringify(args)]),
    {
      maxBuffer: 1 << 24,
      env: { ...process.env, PAGE_SIZE: String(PAGE_SIZE), PAGE_CONCURRENCY: String(CONCURRENCY), ...env },
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as T;
}

interface ArchiverResult {
  sizes?: ColumnSizes;
  node: string;
  codec: string;
  seconds: number;
  cpuSeconds?: number;
  records: number;
  pages: number;
  bytes: number;
  peakRssMiB: number;
  memory?: CaseResult['memory'];
  duckdbRewrite?: DuckdbRewrite;
  /** From the replaying server's log of the run's history requests (see `walkFigures`). */
  walk?: WalkFigures;
}

/** The history requests of one run as the replaying server saw them arrive. */
export interface WalkFigures {
  /** Requests a second from the run's first to its last. */
  pagesPerSecond: number;
  /** The longest time between two requests arriving (ms). */
  longestPauseMs: number;
}

function walkFigures(arrivals: readonly { at: number }[]): WalkFigures | undefined {
  if (arrivals.length < 2) return undefined;
  let longest = 0;
  for (let i = 1; i < arrivals.length; i++)
    longest = Math.max(longest, (arrivals[i] as { at: number }).at - (arrivals[i - 1] as { at: number }).at);
  const span = (arrivals.at(-1) as { at: number }).at - (arrivals[0] as { at: number }).at;
  return {
    pagesPerSecond: round(((arrivals.length - 1) * 1000) / span),
    longestPauseMs: Math.round(longest),
  };
}

/**
 * One case: the fetch-and-parse BOUND and the ARCHIVER (a full local run in its own process, peak RSS
 * measured) against the same emulator data, each run `repeats` times.
 */
export async function runCase(c: BenchCase, repeats: number): Promise<CaseResult> {
  const seed = 5;
  const emulator = await startEmulator({
    seed,
    // Frozen: the replay records one snapshot of every day (`startReplayServer` refuses any other).
    clock: fixedClock(new Date()),
    dataset: c.dataset,
    maxPageSize: PAGE_SIZE,
    faults: { stableOrder: true },
  });
  try {
    const today = toDay(new Date());
    const days: Day[] = c.oneDay ? [addDays(today, -3)] : dayRange(addDays(today, -59), today);
    // Every page recorded once, then served from memory (with the case's latency) to both measurements.
    const replay = await startReplayServer(emulator.url, days, {
      pageSize: PAGE_SIZE,
      concurrency: CONCURRENCY,
      ...(c.delayMs ? { delayMs: c.delayMs } : {}),
    });
    try {
      // Bound, then archiver, `repeats` times each: all children, so none shares a thread with the server.
      // On a shared 2-core machine one run of either varies by ±20%: the bound is the fastest of its runs
      // (the least a run can take), the archiver's time the median of its runs, its peak RSS the highest.
      const runArchiver = async (columns: boolean, wrap: Wrap = unwrapped): Promise<ArchiverResult> => {
        const seen = replay.arrivals().length;
        const r = await child<ArchiverResult>(
          'bench/archiverChild.ts',
          {
            url: replay.url,
            ...(c.oneDay ? { onlyDays: days } : {}),
            ...(c.size && columns ? { columns: true } : {}),
          },
          c.lambdaNode ? LAMBDA_NODE : process.execPath,
          c.encoder ? { PARQUET_ENCODER: c.encoder } : {},
          // As the CLI runs it under that Node: with the flags it would start itself again with.
          cliNodeFlags(c.lambdaNode ? LAMBDA_NODE : process.execPath),
          wrap,
        );
        const walk = walkFigures(
          replay
            .arrivals()
            .slice(seen)
            .filter((a) => a.path.endsWith(`&size=${PAGE_SIZE}`)),
        );
        return { ...r, ...(walk ? { walk } : {}) };
      };
      const bounds: BoundResult[] = [];
      const archivers: ArchiverResult[] = [];
      const scripts: ScriptResult[] = [];
      const scriptsWithIds: ScriptResult[] = [];
      const ideals: IdealFetchResult[] = [];
      for (let i = 0; i < repeats; i++) {
        if (c.script) {
          const args = { url: replay.url, days, pageSize: PAGE_SIZE, concurrency: CONCURRENCY };
          scripts.push(await child<ScriptResult>('bench/scriptChild.ts', args));
          scriptsWithIds.push(await child<ScriptResult>('bench/scriptChild.ts', { ...args, ids: true }));
        }
        bounds.push(
          await child<BoundResult>('bench/boundChild.ts', {
            url: replay.url,
            days,
            pageSize: PAGE_SIZE,
            concurrency: CONCURRENCY,
          }),
        );
        archivers.push(await runArchiver(i === 0));
        if (c.delayMs) {
          const args = { url: replay.url, paths: replay.walkPaths, concurrency: CONCURRENCY };
          ideals.push(await child<IdealFetchResult>('bench/idealChild.ts', args));
        }
      }
      const bound = bounds.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      let atShare: CaseResult['atShare'];
      if (c.atShare) {
        const { share, memoryMb } = shippedCpuShare();
        const opened = openCpuQuota(share, c.name);
        if ('unconstrained' in opened) {
          console.error(opened.unconstrained);
          atShare = { cpuShare: round(share), memoryMb, unconstrained: opened.unconstrained };
        } else {
          try {
            const { quota } = opened;
            const t0 = quota.throttling().throttledMs;
            const a = await runArchiver(false, quota.wrap);
            const throttledMs = quota.throttling().throttledMs - t0;
            const script = c.script
              ? await child<ScriptResult>(
                  'bench/scriptChild.ts',
                  { url: replay.url, days, pageSize: PAGE_SIZE, concurrency: CONCURRENCY },
                  process.execPath,
                  {},
                  [],
                  quota.wrap,
                )
              : undefined;
            atShare = {
              cpuShare: round(quota.share),
              memoryMb,
              archiverSeconds: round(a.seconds),
              ...(a.cpuSeconds === undefined ? {} : { cpuSeconds: round(a.cpuSeconds) }),
              boundFraction: round(bound.seconds / a.seconds),
              pages: a.pages,
              ...(a.cpuSeconds === undefined ? {} : { cpuMsPerPage: round((a.cpuSeconds * 1000) / a.pages) }),
              ...(a.walk ?? {}),
              throttledMs,
              ...(script
                ? { scriptSeconds: round(script.seconds), scriptRatio: round(a.seconds / script.seconds) }
                : {}),
            };
          } finally {
            opened.quota.close();
          }
        }
      }
      const bySeconds = [...archivers].sort((a, b) => a.seconds - b.seconds);
      const highest = archivers.reduce((a, b) => (b.peakRssMiB > a.peakRssMiB ? b : a));
      const medianArchiver = bySeconds[Math.floor((bySeconds.length - 1) / 2)] as ArchiverResult;
      const archiver: ArchiverResult = {
        ...(archivers[0] as ArchiverResult),
        seconds: (bySeconds[Math.floor((bySeconds.length - 1) / 2)] as ArchiverResult).seconds,
        peakRssMiB: highest.peakRssMiB,
        ...(highest.memory ? { memory: highest.memory } : {}),
      };
      const latencyBound = c.delayMs ? (bound.pages * c.delayMs) / 1000 / CONCURRENCY : undefined;
      const boundSeconds = latencyBound ?? bound.seconds;
      const fastestIdeal = ideals.reduce<IdealFetchResult | undefined>(
        (a, b) => (a === undefined || b.seconds < a.seconds ? b : a),
        undefined,
      );
      let gzipJsonlBytes: number | undefined;
      if (c.size) {
        // Exactly the records both measurements were served, one JSON line each, gzipped at the default level.
        const lines = replay.records().map((r) => JSON.stringify(r));
        gzipJsonlBytes = gzipSync(`${lines.join('\n')}\n`).byteLength;
      }
      return {
        bench: 'case',
        name: c.name,
        description: c.description,
        records: archiver.records,
        pages: bound.pages,
        boundSeconds: round(boundSeconds),
        boundBasis: latencyBound === undefined ? 'measured' : 'latency',
        measuredBoundSeconds: round(bound.seconds),
        archiverSeconds: round(archiver.seconds),
        ratio: round(archiver.seconds / boundSeconds),
        peakRssMiB: archiver.peakRssMiB,
        ...(archiver.memory ? { memory: archiver.memory } : {}),
        ...(c.maxRatio === undefined ? {} : { maxRatio: c.maxRatio }),
        ...(c.maxRssMiB === undefined ? {} : { maxRssMiB: c.maxRssMiB }),
        parquetBytes: archiver.bytes,
        ...(gzipJsonlBytes === undefined ? {} : { gzipJsonlBytes }),
        codec: archiver.codec,
        node: archiver.node,
        ...(archiver.sizes ? { sizes: archiver.sizes } : {}),
        ...(archiver.duckdbRewrite ? { duckdbRewrite: archiver.duckdbRewrite } : {}),
        ...cpuFigures(bounds, archivers),
        ...(fastestIdeal
          ? {
              ideal: {
                seconds: round(fastestIdeal.seconds),
                ratio: round(fastestIdeal.seconds / boundSeconds),
                requests: fastestIdeal.requests,
                archiverRequests: archiver.pages,
              },
            }
          : {}),
        ...(c.script ? { script: scriptFigures(scripts, archiver.seconds, c.script.maxRatio) } : {}),
        ...(c.script ? { scriptWithIds: scriptFigures(scriptsWithIds, archiver.seconds, undefined) } : {}),
        ...(medianArchiver.walk ? { walk: medianArchiver.walk } : {}),
        ...(atShare ? { atShare } : {}),
      };
    } finally {
      await replay.close();
    }
  } finally {
    await emulator.close();
  }
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}

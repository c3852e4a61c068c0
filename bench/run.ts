/**
 * `npm run bench [-- --quick] [-- --only=<case,...>]`: for each case, the fetch-and-parse BOUND and the
 * ARCHIVER (a full local run in its own process, peak RSS measured) against the same emulator data; prints
 * one JSON line per case and regenerates bench/RESULTS.md. `--quick` runs small stand-ins of the cases
 * (under two minutes); the full run measures every target.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { LAMBDA_NODE } from '../devkit/lambdaNode.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/clock/day.ts';
import type { DatasetOptions } from '../lib/emulator/dataset.ts';
import { startEmulator } from '../lib/emulator/startEmulator.ts';
import type { ParquetEncoder } from '../lib/parquet/historyParquetFile.ts';
import type { CaseResult } from './caseResult.ts';
import { cliNodeFlags } from './cliNodeFlags.ts';
import type { ColumnSizes } from './columnSizes.ts';
import { openCpuQuota } from './cpuQuota.ts';
import type { DuckdbRewrite } from './duckdbRewrite.ts';
import type { BoundResult } from './fetchBound.ts';
import type { IdealFetchResult } from './idealFetch.ts';
import { type ResultsInput, renderResults } from './renderResults.ts';
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

const PAGE_SIZE = 2000;
const CONCURRENCY = Number(process.env.PAGE_CONCURRENCY ?? 2);
const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));
const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
/** The figures behind RESULTS.md, so that `--only` can re-run some cases and keep the rest. */
const rawPath = fileURLToPath(new URL('./RESULTS.json', import.meta.url));

const quick = process.argv.includes('--quick');
/** Runs of the bound and of the archiver per case (see the case loop). */
const REPEATS = quick ? 1 : 3;
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');

/** 60 default days hold about 17,600 records, so scale 57 gives about a million. */
const MILLION_SCALE = 57;

const FULL: BenchCase[] = [
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

const QUICK: BenchCase[] = [
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

async function runCase(c: BenchCase): Promise<CaseResult> {
  const seed = 5;
  const emulator = await startEmulator({
    seed,
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
      // Bound, then archiver, REPEATS times each: all children, so none shares a thread with the server.
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
      for (let i = 0; i < REPEATS; i++) {
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

function readPrevious(): ResultsInput | undefined {
  try {
    const raw = JSON.parse(readFileSync(rawPath, 'utf8')) as ResultsInput;
    return raw.quick === quick ? { ...raw, at: new Date(raw.at) } : undefined;
  } catch {
    return undefined;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const loadBefore = round(loadavg()[0] ?? 0);
/** Every figure of this invocation is stamped with its start: `--only` runs keep others' stamps. */
const runAt = new Date().toISOString();
const cases = (quick ? QUICK : FULL).filter((c) => !only || only.includes(c.name));
const results: CaseResult[] = [];
let failed = 0;
for (const c of cases) {
  try {
    const r = { ...(await runCase(c)), measuredAt: runAt };
    results.push(r);
    console.log(JSON.stringify(r));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'case', name: c.name, error: String(error) }));
  }
}

let cold: Awaited<ReturnType<typeof import('./coldStart.ts').coldStart>> | undefined;
if (!only || only.includes('cold-start')) {
  try {
    const { coldStart } = await import('./coldStart.ts');
    cold = { ...(await coldStart(quick ? 3 : 7)), measuredAt: runAt };
    console.log(JSON.stringify({ bench: 'cold-start', ...cold, maxMs: 200 }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'cold-start', error: String(error) }));
  }
}

let age: import('./archiveAge.ts').ArchiveAgeResult | undefined;
if (!only || only.includes('archive-age')) {
  try {
    const { archiveAge } = await import('./archiveAge.ts');
    age = { ...(await archiveAge(quick)), measuredAt: runAt };
    console.log(JSON.stringify({ bench: 'archive-age', ...age }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'archive-age', error: String(error) }));
  }
}
const { extraMeasurements } = await import('./extraMeasurements.ts');
const extras = await extraMeasurements(only, quick);
failed += extras.failed;

if (!only || only.includes('detection-noise')) {
  try {
    // The team profile through every rule: new findings a week per rule (all of them false alarms).
    const { detectionNoise } = await import('./detectionNoise.ts');
    console.log(JSON.stringify({ bench: 'detection-noise', ...(await detectionNoise(quick ? 2 : 8)) }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'detection-noise', error: String(error) }));
  }
}

if (!only || only.includes('emulator-dataset')) {
  const { datasetGeneration } = await import('./datasetGeneration.ts');
  const d = datasetGeneration();
  console.log(
    JSON.stringify({ bench: 'emulator-dataset', ...d, maxColdWindowMs: 1_000, maxScaled60DaysMs: 4_000 }),
  );
}

let report: Awaited<ReturnType<typeof import('./reportThreeYears.ts').reportThreeYears>> | undefined;
if (!only || only.includes('report-3y')) {
  try {
    const { reportThreeYears, REPORT_TARGETS } = await import('./reportThreeYears.ts');
    report = { ...(await reportThreeYears(quick ? 1 : 3)), measuredAt: runAt };
    console.log(JSON.stringify({ bench: 'report-3y', ...report, ...REPORT_TARGETS }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'report-3y', error: String(error) }));
  }
}

let fanout: (import('./fanoutSimulation.ts').FanoutFigures & { measuredAt: string }) | undefined;
if (!only || only.includes('fanout-2M')) {
  try {
    const { fanoutSimulation } = await import('./fanoutSimulation.ts');
    // Each map item costs a Lambda invocation on top of its pages: a cold start, as measured above.
    const overhead = ((cold ?? readPrevious()?.cold)?.medianMs ?? 200) / 1000;
    fanout = { ...(await fanoutSimulation(quick ? 5_000 : 40_000, overhead)), measuredAt: runAt };
    console.log(JSON.stringify({ bench: 'fanout-2M', ...fanout }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ bench: 'fanout-2M', error: String(error) }));
  }
}

/**
 * Big days over runs of the CLI at real latency (`big-day`): each about 4 budgets long at the bound, so
 * that several runs resume the walk and are cut again (30k at 40 ms, the scenario test's day, ends in its
 * second run).
 */
interface BigDayCase {
  name: string;
  rows: number;
  latencyMs: number;
  pageRows?: number;
  /** Each run in a CPU quota of the share of a vCPU Lambda gives the stack's engine function. */
  atShare?: boolean;
}
/** Each case unconstrained and at the engine function's CPU share (`-share`). */
const bothShares = (c: BigDayCase): BigDayCase[] => [c, { ...c, name: `${c.name}-share`, atShare: true }];
const BIG_DAYS: BigDayCase[] = quick
  ? bothShares({ name: 'big-day-10k-40ms', rows: 10_000, latencyMs: 40 })
  : [
      ...bothShares({ name: 'big-day-30k-40ms', rows: 30_000, latencyMs: 40 }),
      ...bothShares({ name: 'big-day-100k-40ms', rows: 100_000, latencyMs: 40 }),
      { name: 'big-day-50k-75ms', rows: 50_000, latencyMs: 75 },
      { name: 'big-day-30k-150ms', rows: 30_000, latencyMs: 150 },
      // 2000-row pages: 150 pages, more CPU a page than a run at 40 ms allows even unconstrained.
      ...bothShares({ name: 'big-day-300k-40ms-2000rows', rows: 300_000, latencyMs: 40, pageRows: 2000 }),
    ];
let bigDays: (import('./bigDay.ts').BigDayResult & { measuredAt: string })[] | undefined;
const bigDayCases = BIG_DAYS.filter((c) => !only || only.includes('big-day') || only.includes(c.name));
if (bigDayCases.length > 0) {
  const { bigDay } = await import('./bigDay.ts');
  bigDays = [];
  for (const c of bigDayCases) {
    try {
      const { atShare, ...opts } = c;
      const r = {
        ...(await bigDay({ ...opts, ...(atShare ? { cpuShare: shippedCpuShare().share } : {}) })),
        measuredAt: runAt,
      };
      bigDays.push(r);
      console.log(JSON.stringify(r));
    } catch (error) {
      failed++;
      console.log(JSON.stringify({ bench: 'big-day', name: c.name, error: String(error) }));
    }
  }
}
/**
 * A big day through the fan-out's synthesized state machine under aws-local-stepfunctions (`fanout-local`), at
 * the stack's concurrency, against the replaying server at 75 and 150 ms a page.
 */
const FANOUT_LOCAL = quick
  ? [{ name: 'fanout-local-5k-75ms', rows: 5_000, latencyMs: 75 }]
  : [
      { name: 'fanout-local-30k-75ms', rows: 30_000, latencyMs: 75 },
      { name: 'fanout-local-30k-150ms', rows: 30_000, latencyMs: 150 },
    ];
let fanoutLocal: (import('./fanoutLocal.ts').FanoutLocalResult & { measuredAt: string })[] | undefined;
if (!only || only.includes('fanout-local')) {
  const { fanoutLocal: run } = await import('./fanoutLocal.ts');
  fanoutLocal = [];
  for (const c of FANOUT_LOCAL) {
    try {
      // At the functions' share too: on a machine of fewer cores than the map's functions share, the cap.
      const r = { ...(await run({ ...c, functionCpuShare: shippedCpuShare().share })), measuredAt: runAt };
      fanoutLocal.push(r);
      console.log(JSON.stringify(r));
    } catch (error) {
      failed++;
      console.log(JSON.stringify({ bench: 'fanout-local', name: c.name, error: String(error) }));
    }
  }
}
let finishUnion: (import('./finishUnionMemory.ts').UnionMemory & { measuredAt: string })[] | undefined;
if (!only || only.includes('finish-union')) {
  const { finishUnionMemory, FINISH_UNION_SIZES } = await import('./finishUnionMemory.ts');
  finishUnion = [];
  for (const rows of quick ? [200_000] : FINISH_UNION_SIZES) {
    try {
      const r = { ...(await finishUnionMemory(rows)), measuredAt: runAt };
      finishUnion.push(r);
      console.log(JSON.stringify(r));
    } catch (error) {
      failed++;
      console.log(JSON.stringify({ bench: 'finish-union', rows, error: String(error) }));
    }
  }
}

// `--only` re-runs some cases of the last run of the same mode: the others keep their recorded figures.
const previous = only ? readPrevious() : undefined;
// Figures of older results files carry no time of their own: that of their run.
const kept = <T extends { measuredAt?: string }>(r: T | undefined): T | undefined =>
  r && previous ? { ...r, measuredAt: r.measuredAt ?? previous.at.toISOString() } : r;
const merged = {
  quick,
  node: process.versions.node,
  concurrency: CONCURRENCY,
  pageSize: PAGE_SIZE,
  results: (quick ? QUICK : FULL)
    .map(
      (c) => results.find((r) => r.name === c.name) ?? kept(previous?.results.find((r) => r.name === c.name)),
    )
    .filter((r): r is CaseResult => r !== undefined),
  cold: cold ?? kept(previous?.cold),
  report: report ?? kept(previous?.report),
  fanout: fanout ?? kept(previous?.fanout),
  // Cases named one by one (`--only=big-day-30k-40ms-share`) replace theirs; the others keep their figures.
  bigDays: bigDays
    ? BIG_DAYS.flatMap((c) => {
        const r =
          bigDays?.find((b) => b.name === c.name) ?? previous?.bigDays?.find((b) => b.name === c.name);
        return r ? [r] : [];
      })
    : previous?.bigDays,
  fanoutLocal: fanoutLocal ?? previous?.fanoutLocal,
  finishUnion: finishUnion ?? previous?.finishUnion,
  age: age ?? kept(previous?.age),
  quiet: extras.quiet ?? previous?.quiet,
  walks: extras.walks ?? previous?.walks,
  rescan: extras.rescan ?? previous?.rescan,
  stages: extras.stages ?? previous?.stages,
  at: new Date(),
  load: [loadBefore, round(loadavg()[0] ?? 0)] as [number, number],
};
writeFileSync(rawPath, `${JSON.stringify(merged, null, 2)}\n`);
writeFileSync(resultsPath, renderResults(merged));
// Biome formats Markdown tables too (`npm run lint` covers this file): format what was just written.
spawnSync(
  fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)),
  ['format', '--write', resultsPath, rawPath],
  {
    stdio: 'ignore',
  },
);
console.log(JSON.stringify({ bench: 'done', results: resultsPath, failed }));
process.exitCode = failed ? 1 : 0;

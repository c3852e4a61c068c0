/**
 * A day bigger than one run, walked by runs of the real CLI (each its own process, as a schedule runs
 * them) against a replaying server with real latency: the emulator's pages of the day (a stable order,
 * pages capped at 100 rows) recorded once and served from memory `latencyMs` after each request. Each run
 * has the archiver function's settings as the stack ships them (`shippedSettings`: its page size, page cap,
 * pages and days at once, from its template environment), but a run budget scaled down from Lambda's 15
 * minutes: runs are cut by `--max-run-ms` and `--deadline-reserve-ms` (recorded as the bench's overrides) and
 * follow each other 6 hours apart in simulated time (`--now`), until the day is proven complete. For each
 * run: its seconds, the pages it fetched, the pages the latency allows in its budget
 * (`(maxRunMs − reserve) ÷ latency × pages in flight`), their ratio, its CPU
 * seconds (and CPU ms a page), how late it ended past `--max-run-ms` and what it kept for its commits, the
 * load average when it started, and its peak RSS. The archive is then read back: every row once.
 * With `cpuShare`, every run's process (and any thread or process it starts) runs in a CPU quota of that
 * share of a core (`bench/cpuQuota.ts`), as Lambda gives the function a share of a vCPU for its memory; for
 * each run, the pages a second over its walk and the longest pause between two of the walk's requests
 * (arrivals at the server) say whether the page's work fits the share.
 * On a machine busy with other work the ratio falls with the CPU the runs get: the load average and the
 * CPU seconds say how much that was (the scenario test `bigDayAcrossRuns` counts the same pages on a clock
 * that only the server's answers move, the same on any machine).
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lambdaCommand } from '../devkit/lambdaCommand.ts';
import { LAMBDA_NODE } from '../devkit/lambdaNode.ts';
import { lambdaNodeFlags } from '../devkit/lambdaNodeFlags.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../devkit/startEmulator.ts';
import { ENGINE_EXEC_WRAPPER } from '../infra/constructs/archiveFunction.ts';
import { fixedClock } from '../lib/archive/emulator/emulatorClock.ts';
import { readRecordIds } from '../lib/archive/parquet/readHistoryParquet.ts';
import type { RunSummary } from '../lib/archive/run/runTypes.ts';
import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import { addDays, toDay } from '../lib/foundation/clock/day.ts';
import { cliNodeFlags } from './cliNodeFlags.ts';
import { type CpuFit, cpuFit } from './cpuFit.ts';
import { openCpuQuota } from './cpuQuota.ts';
import { frozenCli } from './frozenCli.ts';
import { nodeVersion } from './nodeVersion.ts';
import { processCpuUs } from './processCpuUs.ts';
import { type Arrival, startReplayServer } from './replayServer.ts';
import { flatDayDataset } from './scaledDataset.ts';
import {
  type RecordedSettings,
  recordedSettings,
  type SettingOverrides,
  shippedSettings,
} from './shippedSettings.ts';

/** Rows a page the replaying server gives whatever size is asked (the API's cap, an upstream unknown). */
export const PAGE_CAP = 100;

export interface BigDayRun {
  seconds: number;
  pagesThisRun: number;
  /** Pages the latency allows in the run's budget. */
  boundPages: number;
  /** `pagesThisRun ÷ boundPages`, for a run the deadline cut (a run that finished needed fewer pages). */
  ratio?: number;
  /** The run went on with a walk an earlier run's deadline cut. */
  resumed: boolean;
  /** User + system CPU seconds of the run's process. */
  cpuSeconds: number;
  /** CPU ms of the run's process a page fetched (start-up included): how CPU-bound the run is. */
  cpuMsPerPage: number;
  /**
   * CPU ms a page while the walk ran, start-up and commits apart: the run's process's CPU (all its threads)
   * from the walk's first request arriving at the server to its last, ÷ the requests between them
   * (`Arrival.cpuUs`, read from `/proc`).
   */
  walkCpuMsPerPage?: number;
  /**
   * How late the run ended, in ms past its `--max-run-ms` (negative: early): the run's own figure (its
   * deadline's end to its lease given back) plus the bench's from printing the summary to the process's exit.
   */
  overrunMs: number;
  /** What the run kept before its end for its commits (the reserve, or more once its commits were slower). */
  keptMs: number;
  /** The walk's pages a second: its history requests ÷ the time from its first to its last. */
  pagesPerSecond: number;
  /** The longest time between two of the walk's requests arriving at the server (ms). */
  longestPauseMs: number;
  /** When that pause began, in ms from the walk's first request (early: start-up work beside the walk). */
  longestPauseAtMs?: number;
  /** Under a CPU quota: the time the run's threads waited for it (ms). */
  throttledMs?: number;
  /** The machine's 1-minute load average when the run started (2 cores). */
  load: number;
  interrupted: boolean;
  complete: boolean;
  newRecords: number;
  peakRssMiB: number;
}

export interface BigDayResult {
  bench: 'big-day';
  name: string;
  rows: number;
  latencyMs: number;
  /** How the runs started (`bigDayRuntime`): as the function runs (`lambda`) or as the CLI runs here. */
  runtime?: BigDayRuntimeName;
  /** The runs' Node version, and the flags they started with. */
  node?: string;
  nodeFlags?: string[];
  /** The script each run's Node started through, as the function's runtime starts through it (its name). */
  execWrapper?: string;
  /** `PARQUET_ENCODER` of the runs, when set. */
  encoder?: 'inline' | 'worker';
  /** Rows a page (the server's cap and the walk's page size). */
  pageRows?: number;
  /** The share of a core each run was limited to (absent: unconstrained, the machine's cores). */
  cpuShare?: number;
  /** Why a run asked for a share ran unconstrained (no cgroup write access). */
  unconstrained?: string;
  maxRunMs: number;
  reserveMs: number;
  /** The archiver function's settings as the stack ships them, which every run had. */
  settings?: RecordedSettings;
  /** What the runs had instead of the shipped value: the scaled run budget, and the CPU when unconstrained. */
  overrides?: SettingOverrides;
  runs: BigDayRun[];
  /** Runs the latency bound needs: the day's pages (and its end page) ÷ the bound's pages a run. */
  boundRuns: number;
  pages: number;
  /** Lowest ratio over the runs the deadline cut. */
  minCutRatio: number;
  /** Lowest ratio over the cut runs that resumed a walk (1 when none was cut). */
  minResumedRatio: number;
  /** Largest `overrunMs` over the runs: at most 0 when every run ended within its budget. */
  maxOverrunMs: number;
  /** Rows in the archive, and distinct among them. */
  archived: { rows: number; distinct: number };
  /** The runs' CPU split into a run's fixed part and what a page adds (`cpuFit`), when the runs separate them. */
  cpuFit?: CpuFit;
  seconds: number;
}

export type BigDayRuntimeName = 'lambda' | 'local';

export interface BigDayRuntime {
  name: BigDayRuntimeName;
  node: string;
  version: string;
  nodeFlags: readonly string[];
  /** The script the Node is started through (the template's `AWS_LAMBDA_EXEC_WRAPPER`, here), if any. */
  execWrapper?: string;
  encoder?: 'inline' | 'worker';
}

/**
 * This repository's copy of the exec wrapper a function's template names (`AWS_LAMBDA_EXEC_WRAPPER`, a path
 * in the function's package): the script its bundling copies there. Undefined for none; a path no script of
 * this repository is copied to is an error, since the bench could not start the run as the function starts.
 */
export function localExecWrapper(templatePath: string | null): string | undefined {
  if (templatePath === null) return undefined;
  if (templatePath === ENGINE_EXEC_WRAPPER.path) return ENGINE_EXEC_WRAPPER.source;
  throw new Error(
    `the template starts the function through ${templatePath}, which no script here is bundled as`,
  );
}

/**
 * What each run of a big day starts with. `lambda`: the Lambda's Node with the flags Lambda's runtime
 * gives a function of the archiver's memory in the synthesized template (`lambdaNodeFlags`; the template
 * sets no `NODE_OPTIONS`), and the inline encoder, the only one its bundle has, unless `encoder` asks for
 * another. `local`: this process's Node, the CLI's flags under it, and `encoder` when given (else the
 * config's default).
 */
export function bigDayRuntime(name: BigDayRuntimeName, encoder?: 'inline' | 'worker'): BigDayRuntime {
  if (name === 'lambda') {
    const version = nodeVersion(LAMBDA_NODE);
    const shipped = shippedSettings();
    const nodeFlags = lambdaNodeFlags(shipped.archiver.memoryMb);
    const execWrapper = localExecWrapper(shipped.execWrappers.archiver);
    return {
      name,
      node: LAMBDA_NODE,
      version,
      nodeFlags,
      ...(execWrapper ? { execWrapper } : {}),
      encoder: encoder ?? 'inline',
    };
  }
  return {
    name,
    node: process.execPath,
    version: process.version,
    nodeFlags: cliNodeFlags(process.execPath),
    ...(encoder ? { encoder } : {}),
  };
}

const PEAK_RSS = fileURLToPath(new URL('./peakRss.cjs', import.meta.url));

function cliRun(
  runtime: Pick<BigDayRuntime, 'node' | 'execWrapper'>,
  cli: string,
  args: string[],
  wrap: (command: string, args: string[]) => [string, string[]],
  nodeFlags: readonly string[],
  env: Record<string, string>,
  /** Called with the process's pid once it started (the wrappers exec into Node: the pid is Node's). */
  onStart: (pid: number | undefined) => void = () => undefined,
): Promise<{ stdout: string; stderr: string; code: number | null; tailMs: number }> {
  return new Promise((resolve) => {
    // As Lambda starts a function with an exec wrapper: the script, given the Node and its arguments.
    const { node, execWrapper } = runtime;
    const nodeArgs = [...nodeFlags, '--require', PEAK_RSS, cli, ...args];
    const [command, commandArgs] = lambdaCommand(node, nodeArgs, execWrapper);
    const child = spawn(...wrap(command, commandArgs), {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TUNNEL_API_KEY: EMULATOR_PAID_KEY,
        LOG_LEVEL: 'error',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onStart(child.pid);
    let stdout = '';
    let stderr = '';
    // When the last output arrived: the summary is printed last, the process exits after it.
    let printedAt = performance.now();
    child.stdout.on('data', (d) => {
      stdout += d;
      printedAt = performance.now();
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ stdout, stderr, code, tailMs: performance.now() - printedAt }));
  });
}

export async function bigDay(opts: {
  name: string;
  rows: number;
  latencyMs: number;
  maxRunMs?: number;
  reserveMs?: number;
  maxRuns?: number;
  /** Rows a page the server gives (its cap; default 100). */
  pageRows?: number;
  /** The share of a core each run may use; unconstrained when absent. */
  cpuShare?: number;
  /** `PARQUET_ENCODER` of the runs (the config's default when absent). */
  encoder?: 'inline' | 'worker';
  /** Each run's CPU profile (`node --cpu-prof`) written to `<profileDir>/run-<n>` (tools/profile). */
  profileDir?: string;
  /**
   * How each run starts (default `lambda`): `lambda` as the function runs, on the Lambda's Node
   * (`LAMBDA_NODE`, 24) with the flags Lambda's runtime gives the function (`lambdaNodeFlags`) and the encoder its bundle has (inline: no worker
   * entry, `parquetWorkerClient.ts`) unless `encoder` says otherwise; `local` as the CLI runs here, on
   * this process's Node with the flags the CLI adds under it (`cliNodeFlags`) and the config's encoder.
   */
  runtime?: BigDayRuntimeName;
}): Promise<BigDayResult> {
  const pageRows = opts.pageRows ?? PAGE_CAP;
  const runtime = bigDayRuntime(opts.runtime ?? 'lambda', opts.encoder);
  const { nodeFlags } = runtime;
  const settings = recordedSettings(shippedSettings(), 'archiver', pageRows);
  const inFlight = settings.pageConcurrency;
  const maxRunMs = opts.maxRunMs ?? 6_000;
  const reserveMs = opts.reserveMs ?? 500;
  const start = Date.parse('2026-10-01T06:00:00.000Z');
  const clock = fixedClock(start);
  const emulator = await startEmulator({
    clock,
    maxPageSize: pageRows,
    dataset: flatDayDataset(opts.rows),
    faults: { stableOrder: true },
  });
  const day = addDays(toDay(new Date(start)), -3);
  // Each request's arrival reads the CPU the running run's process has used so far.
  let runPid: number | undefined;
  const replay = await startReplayServer(emulator.url, [day], {
    pageSize: pageRows,
    concurrency: inFlight,
    delayMs: opts.latencyMs,
    askedSize: settings.pageSize,
    stamp: () => (runPid === undefined ? undefined : processCpuUs(runPid)),
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-bigday-'));
  // Every run starts the same bundle, built once, as a Lambda does (no esbuild at a run's start).
  const cli = await frozenCli(dir);
  const boundPages = ((maxRunMs - reserveMs) / opts.latencyMs) * inFlight;
  const dayPages = Math.ceil(opts.rows / pageRows) + (opts.rows % pageRows === 0 ? 1 : 0);
  const runs: BigDayRun[] = [];
  const t0 = performance.now();
  const quota = opts.cpuShare === undefined ? undefined : openCpuQuota(opts.cpuShare, opts.name);
  const wrap =
    quota && 'quota' in quota ? quota.quota.wrap : (c: string, a: string[]): [string, string[]] => [c, a];
  const walked = `?page=`;
  try {
    while (runs.length < (opts.maxRuns ?? 40)) {
      const now = new Date(start + runs.length * 6 * 3_600_000);
      clock.set(now);
      const load = loadavg()[0] ?? 0;
      const r0 = performance.now();
      const seen = replay.arrivals().length;
      const throttled0 = quota && 'quota' in quota ? quota.quota.throttling().throttledMs : 0;
      const out = await cliRun(
        runtime,
        cli,
        [
          'run',
          '--json',
          '--now',
          now.toISOString(),
          '--base-url',
          replay.url,
          '--dest',
          join(dir, 'archive'),
          '--days',
          day,
          // The archiver function's settings, as its template environment gives them.
          '--page-size',
          String(settings.pageSize),
          ...(settings.maxPagesPerDay === null
            ? []
            : ['--max-pages-per-day', String(settings.maxPagesPerDay)]),
          '--page-concurrency',
          String(settings.pageConcurrency),
          '--day-concurrency',
          String(settings.dayConcurrency),
          '--max-run-ms',
          String(maxRunMs),
          '--deadline-reserve-ms',
          String(reserveMs),
        ],
        wrap,
        [
          ...nodeFlags,
          ...(opts.profileDir
            ? ['--cpu-prof', `--cpu-prof-dir=${join(opts.profileDir, `run-${runs.length}`)}`]
            : []),
        ],
        runtime.encoder ? { PARQUET_ENCODER: runtime.encoder } : {},
        (pid) => {
          runPid = pid;
        },
      );
      runPid = undefined;
      const throttledMs =
        quota && 'quota' in quota ? quota.quota.throttling().throttledMs - throttled0 : undefined;
      // The walk's requests: the day's pages (not the preflight's one-row page of today).
      const walkArrivals = replay
        .arrivals()
        .slice(seen)
        .filter((a) => a.path.includes(`/${day}/${day}${walked}`));
      const walk = walkArrivals.map((a) => a.at);
      const walkCpu = walkCpuMsPerPage(walkArrivals);
      const gaps = walk.slice(1).map((at, i) => at - (walk[i] as number));
      const walkMs = walk.length > 1 ? (walk.at(-1) as number) - (walk[0] as number) : 0;
      const seconds = (performance.now() - r0) / 1000;
      // Exit 7: the day failed on this run; a day cut on several runs in a row is reported so, and goes on.
      if (out.code !== 0 && out.code !== 7)
        throw new Error(`run ${runs.length} exited ${out.code}: ${out.stderr}`);
      const summary = JSON.parse(out.stdout.trim().split('\n').at(-1) as string) as RunSummary;
      const d = summary.days.find((x) => x.day === day);
      if (!d) throw new Error(`run ${runs.length} did not walk ${day}`);
      const peak = Number(/peak-rss-kib=(\d+)/.exec(out.stderr)?.[1] ?? 0);
      const cpuUs = Number(/cpu-us=(\d+)/.exec(out.stderr)?.[1] ?? 0);
      runs.push({
        seconds: round(seconds),
        pagesThisRun: d.pagesThisRun,
        boundPages,
        ...(d.interrupted ? { ratio: round(d.pagesThisRun / boundPages) } : {}),
        resumed: d.resumedAt !== undefined,
        cpuSeconds: round(cpuUs / 1e6),
        cpuMsPerPage: round(cpuUs / 1e3 / Math.max(1, d.pagesThisRun)),
        ...(walkCpu === undefined ? {} : { walkCpuMsPerPage: walkCpu }),
        pagesPerSecond: walkMs > 0 ? round(((walk.length - 1) * 1000) / walkMs) : 0,
        longestPauseMs: Math.round(Math.max(0, ...gaps)),
        ...(gaps.length
          ? {
              longestPauseAtMs: Math.round(
                (walk[gaps.indexOf(Math.max(...gaps))] as number) - (walk[0] as number),
              ),
            }
          : {}),
        ...(throttledMs === undefined ? {} : { throttledMs }),
        overrunMs: Math.round((summary.deadline?.overrunMs ?? 0) + out.tailMs),
        keptMs: summary.deadline?.keptMs ?? reserveMs,
        load: round(load),
        interrupted: d.interrupted,
        complete: d.complete,
        newRecords: d.newRecords,
        peakRssMiB: round(peak / 1024),
      });
      if (d.complete) break;
    }
    const objects = createFileObjectStore(join(dir, 'archive'));
    const ids: string[] = [];
    for await (const o of objects.list('history/'))
      if (o.key.endsWith('.parquet'))
        ids.push(...(await readRecordIds((await objects.get(o.key)) as Uint8Array)));
    const cut = runs.flatMap((r) => (r.ratio === undefined ? [] : [r.ratio]));
    const resumedCut = runs.flatMap((r) => (r.ratio === undefined || !r.resumed ? [] : [r.ratio]));
    const fit = cpuFit(runs);
    return {
      bench: 'big-day',
      name: opts.name,
      rows: opts.rows,
      latencyMs: opts.latencyMs,
      pageRows,
      runtime: runtime.name,
      node: runtime.version,
      nodeFlags: [...nodeFlags],
      ...(runtime.execWrapper ? { execWrapper: basename(runtime.execWrapper) } : {}),
      ...(runtime.encoder ? { encoder: runtime.encoder } : {}),
      ...(quota && 'quota' in quota ? { cpuShare: round(quota.quota.share) } : {}),
      ...(quota && 'unconstrained' in quota ? { unconstrained: quota.unconstrained } : {}),
      maxRunMs,
      reserveMs,
      settings,
      overrides: {
        maxRunMs,
        deadlineReserveMs: reserveMs,
        ...(quota && 'quota' in quota ? {} : { cpu: 'the machine’s cores, no quota' }),
      },
      runs,
      boundRuns: Math.ceil(dayPages / boundPages),
      pages: runs.reduce((a, r) => a + r.pagesThisRun, 0),
      minCutRatio: cut.length ? Math.min(...cut) : 1,
      minResumedRatio: resumedCut.length ? Math.min(...resumedCut) : 1,
      maxOverrunMs: Math.max(...runs.map((r) => r.overrunMs)),
      archived: { rows: ids.length, distinct: new Set(ids).size },
      ...(fit ? { cpuFit: fit } : {}),
      seconds: round((performance.now() - t0) / 1000),
    };
  } finally {
    if (quota && 'quota' in quota) quota.quota.close();
    await replay.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU ms a page while a walk ran: the CPU read at its last request's arrival less that at its first, ÷ the
 * requests between them; undefined without two stamped requests.
 */
export function walkCpuMsPerPage(walk: readonly Arrival[]): number | undefined {
  const first = walk[0]?.cpuUs;
  const last = walk.at(-1)?.cpuUs;
  if (walk.length < 2 || first === undefined || last === undefined) return undefined;
  return round((last - first) / 1e3 / (walk.length - 1));
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

if (process.argv[1]?.endsWith('bigDay.ts')) {
  // `bigDay.ts rows,latencyMs[,pageRows[,cpuShare]] [inline|worker] [lambda|local]`
  const [rows, latency, pageRows, share] = (process.argv[2] ?? '30000,40').split(',').map(Number);
  const r = await bigDay({
    name: 'cli',
    rows: rows ?? 30_000,
    latencyMs: latency ?? 40,
    ...(pageRows ? { pageRows } : {}),
    ...(share ? { cpuShare: share } : {}),
    ...(process.argv[3] === 'inline' || process.argv[3] === 'worker' ? { encoder: process.argv[3] } : {}),
    ...(process.argv[4] === 'local' ? { runtime: 'local' } : {}),
  });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

/**
 * `npm run bench -- --only=fanout-local`: a big day walked through the Step Functions fan-out, measured. The
 * state machine as the stack synthesizes it, at the stack's `fanoutConcurrency` (read from the synthesized
 * `MaxConcurrency`), runs under aws-local-stepfunctions with the real handler in process (the Lambda's Node,
 * the runner of the state machine's integration test: devkit/infra/localFanout.ts), against the replaying
 * server of `big-day` (pages capped at 100 rows, served from memory `latencyMs` after each request).
 *
 * The day's pages are split in ranges of ⌈pages ÷ concurrency⌉ (`fanoutRangePages`, given as CDK context): each
 * worker of the map walks one range, so the latency bound is `concurrency × wall ÷ latency` pages (one request
 * at a time a worker; each worker keeps PAGE_CONCURRENCY requests in flight, so pages ÷ bound can pass 1).
 * Figures: the orchestration's wall seconds, map items, requests the server answered, peak RSS of the
 * process (the machine, the handlers, s3rver and dynalite in one), and the archive read back: every row once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { synthesizedDefinition } from '../devkit/infra/localStateMachine.ts';
import type { CfnTemplate } from '../devkit/infra/templateArns.ts';
import { templateVariables } from '../devkit/infra/templateEnv.ts';
import { synthApp } from '../devkit/infra/testApp.ts';
import { LAMBDA_NODE, RUN_TS } from '../devkit/lambdaNode.ts';
import { startEmulator } from '../devkit/startEmulator.ts';
import { fixedClock } from '../lib/archive/emulator/emulatorClock.ts';
import { addDays, toDay } from '../lib/foundation/clock/day.ts';
import { PAGE_CAP } from './bigDay.ts';
import { openCpuQuota } from './cpuQuota.ts';
import { startReplayServer } from './replayServer.ts';
import { flatDayDataset } from './scaledDataset.ts';
import {
  type RecordedSettings,
  recordedSettings,
  type SettingOverrides,
  shippedSettings,
} from './shippedSettings.ts';

export interface FanoutLocalResult {
  bench: 'fanout-local';
  name: string;
  /** Rows of the days the orchestration walked (what the server replays). */
  rows: number;
  latencyMs: number;
  /** The synthesized map's `MaxConcurrency` (the stack's `fanoutConcurrency`). */
  concurrency: number;
  /** `fanoutRangePages` the stack was synthesized with: ⌈the big day's pages ÷ concurrency⌉. */
  rangePages: number;
  /** The fan-out's settings as the stack ships them; `overrides` says what the case synthesized otherwise. */
  settings?: RecordedSettings;
  /** The CDK context the case synthesized the stack with (its range pages, the emulator's window). */
  overrides?: SettingOverrides;
  /** Orchestrations run (one), the map item attempts, and the most walked at one moment. */
  executions: number;
  items: number;
  /** Each item attempt: its id, and the error's name and message when it failed (the map retries it). */
  attempts?: { id: string; error?: string; message?: string }[];
  itemsInFlightMax: number;
  /** Wall seconds of the orchestration (plan, map, finish), in the child process. */
  wallSeconds: number;
  /** Requests the replaying server answered during the orchestration, and those for a history page. */
  requests: number;
  pages: number;
  /** The history pages the window holds (each fetched once by a walk that repeats nothing). */
  windowPages?: number;
  /** `concurrency × wall ÷ latency`: the pages one request at a time a worker allows in the wall time. */
  boundPages: number;
  /** `pages ÷ boundPages`. */
  ratio: number;
  /** Wall seconds of the map alone (its first item's start to its last item's end), and pages ÷ its bound. */
  mapSeconds: number;
  mapRatio: number;
  peakRssMiB: number;
  cpuSeconds: number;
  /** The 1-minute load average before and after the case (2 cores). */
  load: [number, number];
  /**
   * The CPU quota the orchestration's process ran in, in cores: the engine function's share × the map's
   * concurrency (one function a worker), capped at the machine's cores; `unconstrained` says why none was set.
   */
  cpuShare?: number;
  unconstrained?: string;
  archived: { rows: number; distinct: number };
  failedDays: number;
  seconds: number;
}

const PEAK_RSS = fileURLToPath(new URL('./peakRss.cjs', import.meta.url));
const WINDOW_DAYS = 2;

export async function fanoutLocal(opts: {
  name: string;
  rows: number;
  latencyMs: number;
  /** The share of a core one function gets; the process gets `concurrency ×` it, capped at the cores. */
  functionCpuShare?: number;
}): Promise<FanoutLocalResult> {
  const t0 = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  // Ten minutes into today: the window holds yesterday's big day and the few rows today has ended.
  const start = Date.parse('2026-10-01T00:10:00.000Z');
  const emulator = await startEmulator({
    clock: fixedClock(start),
    maxPageSize: PAGE_CAP,
    windowDays: WINDOW_DAYS,
    dataset: flatDayDataset(opts.rows),
    faults: { stableOrder: true },
  });
  const today = toDay(new Date(start));
  const dir = mkdtempSync(join(tmpdir(), 'bench-fanout-local-'));
  try {
    const shipped = recordedSettings(shippedSettings(), 'fanoutFunction', PAGE_CAP);
    const replay = await startReplayServer(emulator.url, [addDays(today, -1), today], {
      pageSize: PAGE_CAP,
      concurrency: shipped.pageConcurrency,
      delayMs: opts.latencyMs,
      askedSize: shipped.pageSize,
    });
    try {
      const concurrency = shipped.machine?.maxConcurrency as number;
      const rangePages = Math.max(10, Math.ceil(opts.rows / PAGE_CAP / concurrency));
      const context = { fanoutRangePages: rangePages, windowDays: WINDOW_DAYS };
      const { stack, template } = synthApp({ context });
      const machineId = stack.getLogicalId(stack.fanout.stateMachine.node.defaultChild as never);
      const definition = synthesizedDefinition(template, machineId);
      const synthesized = (definition.States.Walk as { MaxConcurrency?: number }).MaxConcurrency;
      if (synthesized !== concurrency)
        throw new Error(`the synthesized map's MaxConcurrency is ${synthesized}, not ${concurrency}`);
      const file = join(dir, 'definition.json');
      writeFileSync(file, JSON.stringify(definition));
      const envFile = join(dir, 'template-env.json');
      const fanoutId = stack.getLogicalId(stack.fanout.fn.node.defaultChild as never);
      writeFileSync(envFile, JSON.stringify(templateVariables(template.toJSON() as CfnTemplate, fanoutId)));
      const before = replay.requests();
      const opened =
        opts.functionCpuShare === undefined
          ? undefined
          : openCpuQuota(Math.min(opts.functionCpuShare * concurrency, availableParallelism()), opts.name);
      const quota = opened && 'quota' in opened ? opened.quota : undefined;
      const out = await child(quota?.wrap ?? ((c, a) => [c, a]), [
        '--require',
        PEAK_RSS,
        RUN_TS,
        'bench/fanoutLocalChild.ts',
        file,
        replay.url,
        new Date(start).toISOString(),
        envFile,
      ]).finally(() => quota?.close());
      const after = replay.requests();
      const line = out.stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (!line)
        throw new Error(`the fan-out child printed no result (${out.code}): ${out.stderr.slice(-2000)}`);
      const r = JSON.parse(line.slice('RESULT '.length)) as {
        wallSeconds: number;
        mapSeconds: number;
        items: number;
        attempts: { id: string; error?: string; message?: string }[];
        inFlightMax: number;
        summary: { failedDays?: unknown[] };
        archived: { rows: number; distinct: number };
        error?: { name: string; message: string };
      };
      if (r.error) throw new Error(`the orchestration failed: ${r.error.name}: ${r.error.message}`);
      const pages = after.historyPages - before.historyPages;
      const boundPages = (concurrency * r.wallSeconds * 1000) / opts.latencyMs;
      return {
        bench: 'fanout-local',
        name: opts.name,
        rows: replay.records().length,
        latencyMs: opts.latencyMs,
        concurrency,
        rangePages,
        settings: shipped,
        overrides: context,
        executions: 1,
        items: r.items,
        attempts: r.attempts,
        itemsInFlightMax: r.inFlightMax,
        wallSeconds: round(r.wallSeconds),
        requests: after.all - before.all,
        pages,
        windowPages: replay.pages,
        boundPages: round(boundPages),
        ratio: round(pages / boundPages),
        mapSeconds: round(r.mapSeconds),
        mapRatio: round(pages / ((concurrency * r.mapSeconds * 1000) / opts.latencyMs)),
        peakRssMiB: round(Number(/peak-rss-kib=(\d+)/.exec(out.stderr)?.[1] ?? 0) / 1024),
        cpuSeconds: round(Number(/cpu-us=(\d+)/.exec(out.stderr)?.[1] ?? 0) / 1e6),
        load: [round(loadBefore), round(loadavg()[0] ?? 0)],
        ...(quota ? { cpuShare: round(quota.share) } : {}),
        ...(opened && 'unconstrained' in opened ? { unconstrained: opened.unconstrained } : {}),
        archived: r.archived,
        failedDays: r.summary.failedDays?.length ?? 0,
        seconds: round((performance.now() - t0) / 1000),
      };
    } finally {
      await replay.close();
    }
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(
  wrap: (command: string, args: string[]) => [string, string[]],
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const p = spawn(...wrap(LAMBDA_NODE, args), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

if (process.argv[1]?.endsWith('fanoutLocal.ts')) {
  const [rows, latency] = (process.argv[2] ?? '20000,75').split(',').map(Number);
  const r = await fanoutLocal({ name: 'cli', rows: rows ?? 20_000, latencyMs: latency ?? 75 });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

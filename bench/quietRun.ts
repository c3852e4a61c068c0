import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type StandIns, startStandInsFor } from '../devkit/infra/standInsFor.ts';
import type { CfnTemplate } from '../devkit/infra/templateArns.ts';
import { templateVariables } from '../devkit/infra/templateEnv.ts';
import { synthApp } from '../devkit/infra/testApp.ts';
import { LAMBDA_NODE } from '../devkit/lambdaNode.ts';
import { CLI } from '../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../devkit/startEmulator.ts';
import { median } from './median.ts';

/** A steady-state run with nothing new: its time beyond the start of a bare Node process. */
export interface QuietRun {
  how: 'cli' | 'lambda';
  node: string;
  /** Median wall time of a bare `node -e ''` of the same Node (process start). */
  processStartMs: number;
  /** Median wall time of the quiet run's whole process. */
  runMs: number;
  /** runMs − processStartMs. */
  beyondStartMs: number;
  /** Lambda only: of that, the bundle's import (cold start) and the handler's run (medians). */
  importMs?: number;
  handlerMs?: number;
  samplesMs: number[];
}

const exec = promisify(execFile);

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

async function processStart(node: string, runs: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) ms.push(await timed(() => exec(node, ['-e', ''])));
  return median(ms);
}

/**
 * The CLI, local mode, under the Node at `node`: `tunnel-archiver run` fills a folder archive of the
 * emulator's default 60 days once, then `runs` more runs find nothing new (today's page and the active
 * list are still read).
 */
export async function quietCliRun(runs: number, node: string = process.execPath): Promise<QuietRun> {
  const emulator = await startEmulator({ seed: 5, faults: { stableOrder: true } });
  const dir = await mkdtemp(join(tmpdir(), 'ta-bench-quiet-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    TMPDIR: dir,
    TUNNEL_API_BASE_URL: emulator.url,
    TUNNEL_API_KEY: EMULATOR_PAID_KEY,
    ARCHIVE_DEST: `file://${join(dir, 'archive')}`,
  };
  // As the installed bin runs (`#!/usr/bin/env node`): started bare, so a Node that needs the CLI's flags
  // pays its second start here too (bin/respawn.js).
  const run = () => exec(node, [CLI, 'run'], { cwd: dir, env, maxBuffer: 1 << 24 });
  try {
    await run();
    const samplesMs: number[] = [];
    for (let i = 0; i < runs; i++) samplesMs.push(Math.round(await timed(run)));
    const processStartMs = Math.round(await processStart(node, runs));
    const runMs = median(samplesMs);
    const version = (await exec(node, ['-p', 'process.versions.node'])).stdout.trim();
    return {
      how: 'cli',
      node: version,
      processStartMs,
      runMs,
      beyondStartMs: runMs - processStartMs,
      samplesMs,
    };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The Lambda bundle (as `cdk synth` builds it) on the Lambda's Node 24 against s3rver, dynalite and
 * stubs of Secrets Manager and KMS: one process archives the 60 days, then each of `runs` fresh
 * processes (a cold container each) imports the bundle and handles one scheduled event, finding nothing new.
 */
export async function quietLambdaRun(runs: number): Promise<QuietRun> {
  const outdir = await mkdtemp(join(tmpdir(), 'ta-bench-quiet-bundle-'));
  const emulator = await startEmulator({ seed: 5, faults: { stableOrder: true } });
  let standIns: StandIns | undefined;
  try {
    // The stack as deployed, its API the emulator (the `apiBaseUrl` context): the archiver's own environment.
    const { stack, template } = synthApp({ bundle: true, outdir, context: { apiBaseUrl: emulator.url } });
    const fnId = stack.getLogicalId(stack.archiver.fn.node.defaultChild as never);
    const fn = template.toJSON().Resources[fnId];
    standIns = await startStandInsFor(templateVariables(template.toJSON() as CfnTemplate, fnId), fnId);
    const { env } = standIns;
    const bundle = join(
      outdir,
      `asset.${String(fn?.Properties.Code.S3Key).replace(/\.zip$/, '')}`,
      'index.mjs',
    );
    const script = `
      const t0 = performance.now();
      const { handler } = await import(${JSON.stringify(bundle)});
      const t1 = performance.now();
      await handler({}, { functionName: 'tunnel-archiver', awsRequestId: 'bench', getRemainingTimeInMillis: () => 300000 });
      console.log(JSON.stringify({ importMs: t1 - t0, handlerMs: performance.now() - t1, node: process.versions.node }));`;
    const invoke = () =>
      exec(LAMBDA_NODE, ['--input-type=module', '-e', script], {
        cwd: outdir,
        maxBuffer: 1 << 24,
        env: {
          PATH: process.env.PATH ?? '',
          ...env,
          // As the function's own environment sets it (none: the source map is not loaded).
          NODE_OPTIONS: String(fn?.Properties.Environment?.Variables?.NODE_OPTIONS ?? ''),
        },
      });
    const parse = (stdout: string) =>
      JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        importMs: number;
        handlerMs: number;
        node: string;
      };
    await invoke();
    const samples: { wall: number; importMs: number; handlerMs: number; node: string }[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { stdout } = await invoke();
      samples.push({ wall: performance.now() - t0, ...parse(stdout) });
    }
    const processStartMs = Math.round(await processStart(LAMBDA_NODE, runs));
    const samplesMs = samples.map((s) => Math.round(s.wall));
    const runMs = median(samplesMs);
    return {
      how: 'lambda',
      node: samples[0]?.node ?? '',
      processStartMs,
      runMs,
      beyondStartMs: runMs - processStartMs,
      importMs: Math.round(median(samples.map((s) => s.importMs))),
      handlerMs: Math.round(median(samples.map((s) => s.handlerMs))),
      samplesMs,
    };
  } finally {
    await Promise.allSettled([emulator.close(), standIns?.close()]);
    await rm(outdir, { recursive: true, force: true });
  }
}

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  ArchiverError,
  boundHeapGrowth,
  cpuCapacity,
  TWO_HEAPS_GROWING_PERCENT,
} from '../../foundation/index.ts';
import { type BuiltBundle, cachedBundle } from './cachedBundle.ts';
import type { FileResult, WorkerCall, WorkerReply, WorkerRequest } from './parquetWorkerProtocol.ts';

interface Pending {
  resolve: (result: FileResult | undefined) => void;
  reject: (error: ArchiverError) => void;
}

/**
 * The main thread's handle on the Parquet encoding worker: numbered requests, replies matched by
 * number. The worker keeps the process alive only while a request is outstanding. If the worker dies,
 * every outstanding request fails with `STORE_FAILED` (the day is recorded as failed and retried by the
 * next run) and the next file starts a new worker.
 */
export class ParquetWorkerClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextReq = 0;
  #nextFile = 0;
  #dead: ArchiverError | undefined;

  constructor(worker: Worker) {
    this.#worker = worker;
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.#settle(reply));
    worker.on('error', (error) => this.#die(`the Parquet encoding worker failed: ${error.message}`, error));
    worker.on('exit', (code) => this.#die(`the Parquet encoding worker exited (code ${code})`));
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  /** A new file number (files are named by number in requests). */
  newFile(): number {
    return ++this.#nextFile;
  }

  /** Sends `call`; the promise settles with the worker's reply. */
  call(call: WorkerCall): Promise<FileResult | undefined> {
    if (this.#dead) return Promise.reject(this.#dead);
    const req = ++this.#nextReq;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(req, { resolve, reject });
      this.#worker.postMessage({ ...call, req } as WorkerRequest);
    });
  }

  /** Stops the worker (tests; a process exits without it). */
  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }

  #settle(reply: WorkerReply): void {
    const pending = this.#pending.get(reply.req);
    if (!pending) return;
    this.#pending.delete(reply.req);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new ArchiverError(reply.code, reply.message));
  }

  #die(message: string, cause?: unknown): void {
    if (this.#dead) return;
    this.#dead = new ArchiverError('STORE_FAILED', message, cause === undefined ? {} : { cause });
    if (shared === this) shared = undefined;
    for (const pending of this.#pending.values()) pending.reject(this.#dead);
    this.#pending.clear();
    this.#worker.unref();
  }
}

let shared: ParquetWorkerClient | undefined;

/**
 * The process's one encoding worker, started on first use; undefined where encoding stays on the main
 * thread: under {@link WORKER_MIN_CPU} cores' worth of CPU (a worker would only add copying; the Lambda's
 * 1,769 MB buys one vCPU), or a bundle (the Lambda's), which carries no worker entry and no esbuild.
 */
export function parquetWorker(): ParquetWorkerClient | undefined {
  if (shared?.alive) return shared;
  if (!parquetWorkerAvailable()) return undefined;
  const code = workerCode() as string;
  // A young generation of 8 MiB (V8's default is up to 32): the worker's garbage is encoded row
  // groups, dead as soon as they are written, and a smaller nursery measured about 30 MiB less RSS.
  const options = {
    eval: true,
    stdout: false,
    stderr: false,
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  };
  // Two heaps in one process from here on: each is held closer to its live set.
  boundHeapGrowth(TWO_HEAPS_GROWING_PERCENT);
  shared = new ParquetWorkerClient(new Worker(code, options));
  return shared;
}

/** The process's encoding worker when one is running; never starts one. */
export function runningParquetWorker(): ParquetWorkerClient | undefined {
  return shared?.alive ? shared : undefined;
}

/**
 * The cores' worth of CPU (`cpuCapacity`) from which a file is encoded on the worker. Measured on the 1M
 * backfill in a cgroup quota on two cores (bench/PROFILE.md, 2026-11-30): at 1 core the worker took
 * 23.4–23.6 s and inline encoding 18.6–19.1 s (each row is cloned to the worker and read back, and the
 * two threads share the one core); at 1.5 cores 15.7–16.8 s against 16.1–17.4 s, about even; with two
 * full cores the worker is 1.1–1.5× faster.
 */
export const WORKER_MIN_CPU = 1.5;

/**
 * Whether this runtime can run the encoding worker (see `parquetWorker`), without starting it: at least
 * {@link WORKER_MIN_CPU} cores' worth of CPU (`cpuCapacity`: a container's CPU quota counts, not only the
 * CPUs it may run on) and the worker's code.
 */
export function parquetWorkerAvailable(): boolean {
  return cpuCapacity() >= WORKER_MIN_CPU && workerCode() !== undefined;
}

let bundled: string | null | undefined;

/**
 * The worker's code: `parquetWorker.ts` and what it imports, bundled by esbuild (the CLI's own TypeScript
 * bundler, bin/importTs.js) into one CommonJS script, so the worker needs no loader thread of its own.
 * The bundle is kept beside the CLI's, in `node_modules/.cache/tunnel-archiver`, while its sources are
 * unchanged: bundling took about 100 ms of the main thread in every process that wrote a file, small
 * or not (`parquetWorkerAvailable` asks for it when a file is created). Null where there is no
 * TypeScript entry beside this module or no esbuild.
 */
function workerCode(): string | undefined {
  if (bundled !== undefined) return bundled ?? undefined;
  bundled = null;
  const entry = new URL('./parquetWorker.ts', import.meta.url);
  if (entry.protocol !== 'file:' || !import.meta.url.endsWith('.ts')) return undefined;
  const entryPath = fileURLToPath(entry);
  if (!existsSync(entryPath)) return undefined;
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  try {
    bundled = cachedBundle(
      { dir: join(root, 'node_modules', '.cache', 'tunnel-archiver'), key: WORKER_BUNDLE_KEY, root },
      () => buildWorker(entryPath, root),
    );
  } catch {
    bundled = null;
  }
  return bundled ?? undefined;
}

/** Names the worker's bundle in the cache; the Node major is part of it (esbuild targets it). */
const WORKER_BUNDLE_KEY = `parquet-worker-node${process.versions.node.split('.')[0]}`;

function buildWorker(entryPath: string, root: string): BuiltBundle {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const out = esbuild.buildSync({
    entryPoints: [entryPath],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]?.text;
  if (code === undefined) throw new ArchiverError('INTERNAL', 'esbuild produced no Parquet worker bundle');
  return { code, inputs: Object.keys(out.metafile.inputs) };
}

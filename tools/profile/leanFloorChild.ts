/**
 * Child of `leanFloor.ts`: the lean floor of one run. The main thread only fetches (every page of every day,
 * days in turn, `concurrency` pages at once after page 0, as the bound does) and hands each body's bytes,
 * moved not copied, to `workers` threads in turn (`leanFloorWorker.ts`), which do the `stage`'s work. Prints
 * one JSON line: seconds, CPU seconds of the process (all its threads), pages, records and bytes written.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { benchDispatcher } from '../../bench/fetchBound.ts';
import { EMULATOR_PAID_KEY } from '../../devkit/startEmulator.ts';
import type { Day } from '../../lib/foundation/clock/day.ts';
import { mapLimit } from '../../lib/foundation/concurrency/mapLimit.ts';
import type { LeanStage } from './leanFloorWorker.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  days: Day[];
  pageSize: number;
  concurrency: number;
  workers: number;
  stage: LeanStage;
};
const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
const code = esbuild.buildSync({
  entryPoints: [fileURLToPath(new URL('./leanFloorWorker.ts', import.meta.url))],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false,
  logLevel: 'silent',
}).outputFiles[0]?.text as string;
const dir = await mkdtemp(join(tmpdir(), 'ta-lean-floor-'));
const tokenKey = new Uint8Array(randomBytes(32));
try {
  const workers = Array.from(
    { length: args.workers },
    (_, i) =>
      new Worker(code, {
        eval: true,
        workerData: { out: join(dir, `w${i}.parquet`), tokenKey, stage: args.stage },
      }),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const dispatcher = benchDispatcher(args.concurrency);
  let pages = 0;
  let next = 0;
  const fetchPage = async (day: Day, page: number): Promise<number> => {
    const path = `/backend/api/v1/session/history/${day}/${day}?page=${page}&size=${args.pageSize}`;
    const res = await request(`${args.url}${path}`, {
      dispatcher,
      headers: { authorization: `Bearer ${EMULATOR_PAID_KEY}` },
    });
    const body = await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
    pages++;
    // Page 0 says how many pages the day has: read from its head, as a walk must before it fans out.
    const total =
      page === 0 ? Number(/"totalPages":(\d+)/.exec(Buffer.from(body).toString('latin1'))?.[1] ?? 0) : 0;
    const worker = workers[next++ % workers.length] as Worker;
    worker.postMessage(body, [body]);
    return total;
  };
  for (const day of args.days) {
    const totalPages = await fetchPage(day, 0);
    const rest = Array.from({ length: Math.max(0, totalPages - 1) }, (_, i) => i + 1);
    await mapLimit(rest, args.concurrency, (page) => fetchPage(day, page));
  }
  const done = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<{ records: number; bytes: number }>((resolve) => {
          worker.once('message', resolve);
          worker.postMessage('end');
        }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await dispatcher.close();
  await Promise.all(workers.map((worker) => worker.terminate()));
  console.log(
    JSON.stringify({
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      pages,
      records: done.reduce((n, d) => n + d.records, 0),
      bytes: done.reduce((n, d) => n + d.bytes, 0),
      workers: args.workers,
      stage: args.stage,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * `node bin/run-ts.js tools/profile/pageCpu.ts [rows] [pageRows,...] [share] [trials] [root,...]`: CPU ms a
 * page of the walk's per-page work (`pageCpuChild.ts`: parse, check, keying and rows, hand-over, encoding),
 * on the pages of one flat day of `rows` records (default 20,000) served by the emulator in pages of each
 * `pageRows` (default 100 and 2000). Each measurement is its own process, in a cgroup CPU quota of `share`
 * of a core (default 0.58, the engine function's; `bench/cpuQuota.ts`; unconstrained where the quota cannot
 * be set, and it says so). With several `root`s (checkouts of the repository, each holding
 * `tools/profile/pageCpuChild.ts`), their measurements alternate trial by trial, so a before/after
 * comparison shares the machine's moment. Prints one JSON line a measurement, then the median of each.
 * CPU time, unlike wall time, moves little with the machine's load; the load average is printed with it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCpuQuota } from '../../bench/cpuQuota.ts';
import { fetchBound } from '../../bench/fetchBound.ts';
import { flatDayDataset } from '../../bench/scaledDataset.ts';
import { startEmulator } from '../../devkit/startEmulator.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';

const rows = Number(process.argv[2] ?? 20_000);
const pageSizes = (process.argv[3] ?? '100,2000').split(',').map(Number);
const share = Number(process.argv[4] ?? 0.58);
const trials = Number(process.argv[5] ?? 3);
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const roots = (process.argv[6] ?? here).split(',');

const dir = await mkdtemp(join(tmpdir(), 'ta-page-cpu-'));
try {
  const files = new Map<number, string>();
  const served = new Map<number, string[]>();
  for (const pageSize of pageSizes) {
    const emulator = await startEmulator({
      seed: 5,
      dataset: flatDayDataset(rows),
      maxPageSize: pageSize,
      faults: { stableOrder: true },
    });
    const bodies: string[] = [];
    try {
      await fetchBound(emulator.url, [addDays(toDay(new Date()), -3)], {
        pageSize,
        concurrency: 2,
        onPage: (_path, body) => bodies.push(body),
      });
    } finally {
      await emulator.close();
    }
    // The last page of a day is empty or short: only full pages are measured.
    const full = bodies.filter((b) => (JSON.parse(b) as { content: unknown[] }).content.length === pageSize);
    const file = join(dir, `pages-${pageSize}.json`);
    await writeFile(file, JSON.stringify(full));
    served.set(pageSize, full);
    files.set(pageSize, file);
  }
  // `?page=&size=` of the history path: the body of that page, as the upstream sends it.
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = served.get(Number(url.searchParams.get('size')))?.[Number(url.searchParams.get('page'))];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body ?? '{}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const quota = openCpuQuota(share, 'page-cpu');
  const how = 'quota' in quota ? quota.quota.how : quota.unconstrained;
  const results = new Map<string, number[]>();
  for (let trial = 0; trial < trials; trial++) {
    for (const pageSize of pageSizes) {
      // Each trial takes the checkouts in the other order: neither always runs first.
      for (const root of trial % 2 === 0 ? roots : [...roots].reverse()) {
        const child = join(root, 'tools/profile/pageCpuChild.ts');
        const args = [join(here, 'bin/run-ts.js'), child, files.get(pageSize) as string, baseUrl];
        const [command, argv] =
          'quota' in quota ? quota.quota.wrap(process.execPath, args) : [process.execPath, args];
        const load = Math.round((loadavg()[0] ?? 0) * 10) / 10;
        const out = await run(command, argv, root);
        const line = JSON.parse(out.trim().split('\n').at(-1) as string) as { msPerPage: { total: number } };
        console.log(JSON.stringify({ root, pageSize, share, how, load, trial, ...line }));
        const key = `${root} ${pageSize}`;
        results.set(key, [...(results.get(key) ?? []), line.msPerPage.total]);
      }
    }
  }
  if ('quota' in quota) quota.quota.close();
  server.close();
  for (const [key, totals] of results) {
    const sorted = [...totals].sort((a, b) => a - b);
    console.log(
      JSON.stringify({ median: key, msPerPage: sorted[Math.floor(sorted.length / 2)], all: totals }),
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', fail);
    child.on('exit', (code) =>
      code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/**
 * Child of bench/run.ts: the script a user would write instead of the archiver (issue 22). Every page of
 * every day fetched and `JSON.parse`d exactly as the bound does (so the fetch half IS the bound), each
 * body saved to a file as received; then DuckDB turns the saved records into one ZSTD Parquet file.
 * Prints one JSON line: the seconds of each half and of the whole.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Day } from '../lib/clock/day.ts';
import { fetchBound } from './fetchBound.ts';

export interface ScriptResult {
  pages: number;
  records: number;
  fetchSeconds: number;
  duckdbSeconds: number;
  seconds: number;
  parquetBytes: number;
  peakRssMiB: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  days: Day[];
  pageSize: number;
  concurrency: number;
};
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-script-'));
try {
  const t0 = performance.now();
  const writes: Promise<void>[] = [];
  let n = 0;
  const fetched = await fetchBound(args.url, args.days, {
    ...args,
    onPage: (_path, body) => {
      writes.push(writeFile(join(dir, `page-${String(n++).padStart(6, '0')}.json`), body));
    },
  });
  await Promise.all(writes);
  const t1 = performance.now();
  // Loaded here, as a script would: its load is part of the DuckDB half.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const out = join(dir, 'sessions.parquet');
  await conn.run(
    `COPY (SELECT unnest(content, recursive := true) FROM read_json('${dir}/page-*.json', format = 'auto', maximum_object_size = 268435456))
     TO '${out}' (FORMAT parquet, COMPRESSION zstd)`,
  );
  conn.closeSync();
  db.closeSync();
  const t2 = performance.now();
  const result: ScriptResult = {
    pages: fetched.pages,
    records: fetched.records,
    fetchSeconds: (t1 - t0) / 1000,
    duckdbSeconds: (t2 - t1) / 1000,
    seconds: (t2 - t0) / 1000,
    parquetBytes: (await stat(out)).size,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  console.log(JSON.stringify(result));
} finally {
  await rm(dir, { recursive: true, force: true });
}

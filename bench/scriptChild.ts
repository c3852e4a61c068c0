/**
 * Child of bench/run.ts: the script a user would write instead of the archiver. Every page of
 * every day fetched and `JSON.parse`d exactly as the bound does (so the fetch half IS the bound), each
 * body saved to a file as received; then DuckDB turns the saved records into one ZSTD Parquet file.
 * With `ids`, DuckDB also gives every row the archive's two ids (`copyWithArchiveIds`), and after the
 * timing a sample of them is checked against the archiver's own. Prints one JSON line: the seconds of
 * each half and of the whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Day } from '../lib/foundation/clock/day.ts';
import { checkScriptIds, scriptPageFile } from './checkScriptIds.ts';
import { copyWithArchiveIds } from './copyWithArchiveIds.ts';
import { fetchBound } from './fetchBound.ts';

export interface ScriptResult {
  pages: number;
  records: number;
  fetchSeconds: number;
  duckdbSeconds: number;
  /** CPU seconds of the process (every DuckDB thread) during the DuckDB half. */
  duckdbCpuSeconds: number;
  seconds: number;
  parquetBytes: number;
  peakRssMiB: number;
  /** With `ids`: how many rows' ids were checked equal to the archiver's (a mismatch fails the child). */
  idsChecked?: number;
}

/** Records whose ids are checked, after the timing, in a run with `ids`. */
const IDS_CHECKED = 2_000;

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  days: Day[];
  pageSize: number;
  concurrency: number;
  ids?: boolean;
};
const tokenKey = new Uint8Array(randomBytes(32));
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-script-'));
try {
  const t0 = performance.now();
  const writes: Promise<void>[] = [];
  let n = 0;
  const fetched = await fetchBound(args.url, args.days, {
    ...args,
    onPage: (_path, body) => {
      writes.push(writeFile(scriptPageFile(dir, n++), body));
    },
  });
  await Promise.all(writes);
  const t1 = performance.now();
  const cpu1 = process.cpuUsage();
  // Loaded here, as a script would: its load is part of the DuckDB half.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const out = join(dir, 'sessions.parquet');
  if (args.ids) await copyWithArchiveIds(conn, `${dir}/page-*.json`, out, tokenKey);
  else
    await conn.run(
      `COPY (SELECT unnest(content, recursive := true) FROM read_json('${dir}/page-*.json', format = 'auto', maximum_object_size = 268435456))
     TO '${out}' (FORMAT parquet, COMPRESSION zstd)`,
    );
  const t2 = performance.now();
  const cpu2 = process.cpuUsage(cpu1);
  const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  const idsChecked = args.ids
    ? await checkScriptIds(conn, dir, out, tokenKey, { sample: IDS_CHECKED, now: new Date() })
    : undefined;
  conn.closeSync();
  db.closeSync();
  const result: ScriptResult = {
    pages: fetched.pages,
    records: fetched.records,
    fetchSeconds: (t1 - t0) / 1000,
    duckdbSeconds: (t2 - t1) / 1000,
    duckdbCpuSeconds: (cpu2.user + cpu2.system) / 1e6,
    seconds: (t2 - t0) / 1000,
    parquetBytes: (await stat(out)).size,
    peakRssMiB,
    ...(idsChecked === undefined ? {} : { idsChecked }),
  };
  console.log(JSON.stringify(result));
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Child of bench/run.ts: the script a user would write instead of the archiver (issue 22). Every page of
 * every day fetched and `JSON.parse`d exactly as the bound does (so the fetch half IS the bound), each
 * body saved to a file as received; then DuckDB turns the saved records into one ZSTD Parquet file.
 * With `ids`, DuckDB also gives every row the archive's two ids (`copyWithArchiveIds`), and after the
 * timing a sample of them is checked against the archiver's own. Prints one JSON line: the seconds of
 * each half and of the whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Day } from '../lib/clock/day.ts';
import { recordIdentity } from '../lib/records/recordId.ts';
import { validateHistoryRecord } from '../lib/records/validateHistoryRecord.ts';
import { copyWithArchiveIds } from './copyWithArchiveIds.ts';
import { fetchBound } from './fetchBound.ts';

export interface ScriptResult {
  pages: number;
  records: number;
  fetchSeconds: number;
  duckdbSeconds: number;
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
  if (args.ids) await copyWithArchiveIds(conn, `${dir}/page-*.json`, out, tokenKey);
  else
    await conn.run(
      `COPY (SELECT unnest(content, recursive := true) FROM read_json('${dir}/page-*.json', format = 'auto', maximum_object_size = 268435456))
     TO '${out}' (FORMAT parquet, COMPRESSION zstd)`,
    );
  const t2 = performance.now();
  const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  const idsChecked = args.ids ? await checkIds(conn, dir, out) : undefined;
  conn.closeSync();
  db.closeSync();
  const result: ScriptResult = {
    pages: fetched.pages,
    records: fetched.records,
    fetchSeconds: (t1 - t0) / 1000,
    duckdbSeconds: (t2 - t1) / 1000,
    seconds: (t2 - t0) / 1000,
    parquetBytes: (await stat(out)).size,
    peakRssMiB,
    ...(idsChecked === undefined ? {} : { idsChecked }),
  };
  console.log(JSON.stringify(result));
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * The first {@link IDS_CHECKED} records of the saved pages, each with the ids the archiver gives it, must
 * be rows of `out` with the same ids: else the script's ids are not the archive's, and the child fails.
 */
async function checkIds(conn: DuckDBConnection, dir: string, out: string): Promise<number> {
  const now = new Date();
  const expected: { record_id: string; session_id: string }[] = [];
  for (let page = 0; expected.length < IDS_CHECKED; page++) {
    const path = join(dir, `page-${String(page).padStart(6, '0')}.json`);
    const body = await readFile(path, 'utf8').catch(() => undefined);
    if (body === undefined) break;
    for (const raw of (JSON.parse(body) as { content: unknown[] }).content.slice(
      0,
      IDS_CHECKED - expected.length,
    )) {
      const v = validateHistoryRecord(raw, now);
      if (v.ok) expected.push(recordIdentity(v.record, tokenKey));
    }
  }
  if (expected.length === 0) throw new Error('no saved record to check the script ids against');
  const list = expected.map((e) => `('${e.record_id}', '${e.session_id}')`).join(',');
  const found = await conn.runAndReadAll(
    `SELECT count(DISTINCT record_id) FROM read_parquet('${out}') WHERE (record_id, session_id) IN (${list})`,
  );
  const n = Number(found.getRows()[0]?.[0]);
  const distinct = new Set(expected.map((e) => e.record_id)).size;
  if (n !== distinct)
    throw new Error(`the script's ids differ from the archiver's: ${n} of ${distinct} found`);
  return distinct;
}

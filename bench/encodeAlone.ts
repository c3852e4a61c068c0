/**
 * `node bin/run-ts.js bench/encodeAlone.ts [scale] [rounds]`: what the archive's fixed per-record work costs
 * alone, in one process, on the records of the emulator's 60-day dataset scaled ×`scale` (default 20,
 * about 294k records), pages fetched once and held in memory. Prints one JSON line, CPU µs a record
 * (best of `rounds`, default 5, after one warm-up):
 * - `page`: `JSON.parse` of the pages (what the bound does);
 * - `check`: the wire check of every record (`parseHistoryPage`);
 * - `keys`: keying each record (`keyRecord`: instants, token HMACs, extras, the `record_id`);
 * - `row`: its row as a walk hands it to the encoder (`KeyedRecord.draftRow`: the row's values, its
 *   `session_id` left to the encoder), as keying and the row together less keying alone (the best round
 *   of each); both drop each record's objects once done, as a walk does;
 * - `sha256`: the two ids' SHA-256 alone, over the same texts (the contract pins both ids);
 * - `encode`: the rows, grouped by partition, encoded into GZIP Parquet files as the archive writes them
 *   (`RowChunkBuilder`, `ParquetDraftWriter`, which derives each `session_id`, the run's row-group
 *   settings), of which `gzip` is the time in zlib's GZIP (the codec on Node 20, which has no zstd).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DraftRow } from '../lib/archive/records/archiveRow.ts';
import type { HistoryRecord } from '../lib/archive/records/schemas.ts';
import { scaledPageBodies } from './scaledPageBodies.ts';

const scale = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 5);

// zlib's GZIP and crypto's one-shot hash, timed and collected from outside: both are looked up on the
// builtin module when called, so the archive's own code runs unchanged through these wrappers.
const require = createRequire(import.meta.url);
const zlibCjs = require('node:zlib') as typeof import('node:zlib');
const gzipSync = zlibCjs.gzipSync;
let gzipMs = 0;
zlibCjs.gzipSync = ((input: import('node:zlib').InputType, options?: import('node:zlib').ZlibOptions) => {
  const t = performance.now();
  const out = gzipSync(input, options);
  gzipMs += performance.now() - t;
  return out;
}) as typeof gzipSync;
type OneShot = (algorithm: string, data: string, encoding: 'hex') => string;
const cryptoCjs = require('node:crypto') as { hash: OneShot };
const hash = cryptoCjs.hash;
let texts: string[] | undefined;
cryptoCjs.hash = (algorithm: string, data: string, encoding: 'hex') => {
  texts?.push(data);
  return hash(algorithm, data, encoding);
};
syncBuiltinESMExports();
// Imported after the wrappers are in place (`recordId.ts` takes `crypto.hash` when it loads).
const { parseHistoryPage } = await import('../lib/archive/upstream/parseResponses.ts');
const { keyRecord } = await import('../lib/archive/records/keyedRecord.ts');
const { CHUNK_ROWS, RowChunkBuilder } = await import('../lib/archive/parquet/rowChunk.ts');
const { ParquetDraftWriter } = await import('../lib/archive/parquet/parquetDraftWriter.ts');
const { DEFAULT_ROW_GROUP_BYTES } = await import('../lib/archive/parquet/historyParquetFile.ts');

const bodies = await scaledPageBodies(scale);

const now = new Date();
const opts = { tokenPolicy: 'hash' as const, tokenKey: new Uint8Array(32).fill(7), archivedAt: now };
const cpuMs = (f: () => void): number => {
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};
const best: Record<string, number> = {};
const keep = (name: string, ms: number, n: number) => {
  const us = (ms * 1000) / n;
  best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, us);
};
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-encode-'));
let records = 0;
try {
  for (let round = 0; round <= rounds; round++) {
    let jsons: unknown[] = [];
    const pageMs = cpuMs(() => {
      jsons = bodies.map((b) => JSON.parse(b));
    });
    let content: HistoryRecord[] = [];
    const checkMs = cpuMs(() => {
      for (const json of jsons) {
        const page = parseHistoryPage(json, now);
        if (!page.ok) throw new Error('a page failed its check');
        for (const r of page.value.content) content.push(r);
      }
    });
    records = content.length;
    // Keying and the row as a walk does them: each record's objects dropped as soon as it is done, so
    // their garbage dies young (holding every record's key would add GC a run never pays).
    let ids = 0;
    const keysMs = cpuMs(() => {
      for (const record of content) {
        const keyed = keyRecord(record, opts);
        if (!keyed.ok) throw new Error(keyed.reason);
        ids += keyed.keyed.id.length;
      }
    });
    const keysAndRowMs = cpuMs(() => {
      for (const record of content) {
        const keyed = keyRecord(record, opts);
        if (!keyed.ok) throw new Error(keyed.reason);
        ids += keyed.keyed.draftRow().record_id.length;
      }
    });
    if (ids === 0) throw new Error('no ids');
    // The rows the encoding stage takes, by partition, and both ids' texts (`row()` hashes the session's
    // too, here only to collect its text: the encoder derives it again, timed in `encode`); not timed.
    texts = [];
    const byDt = new Map<string, DraftRow[]>();
    for (const record of content) {
      const keyed = keyRecord(record, opts);
      if (!keyed.ok) throw new Error(keyed.reason);
      const rows = byDt.get(keyed.keyed.dt) ?? [];
      if (rows.length === 0) byDt.set(keyed.keyed.dt, rows);
      keyed.keyed.row();
      rows.push(keyed.keyed.draftRow());
    }
    const hashed = texts;
    texts = undefined;
    const sha256Ms = cpuMs(() => {
      for (const text of hashed) hash('sha256', text, 'hex');
    });
    content = [];
    jsons = [];
    gzipMs = 0;
    const c0 = process.cpuUsage();
    for (const [dt, rows] of byDt) {
      const builder = new RowChunkBuilder();
      const writer = await ParquetDraftWriter.create(join(dir, `${dt}.parquet`), {
        rowGroupSize: 100_000,
        rowGroupBytes: DEFAULT_ROW_GROUP_BYTES,
        compression: 'GZIP',
      });
      for (const row of rows) {
        builder.push(row);
        if (builder.rows >= CHUNK_ROWS) await writer.append(builder.take());
      }
      await writer.append(builder.take());
      await writer.finish();
    }
    const c = process.cpuUsage(c0);
    if (round === 0) continue;
    keep('page', pageMs, records);
    keep('check', checkMs, records);
    keep('keys', keysMs, records);
    keep('keysAndRow', keysAndRowMs, records);
    keep('sha256', sha256Ms, records);
    keep('encode', (c.user + c.system) / 1000, records);
    keep('gzip', gzipMs, records);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
// The row's cost is the best of keying and the row together less the best of keying alone.
const { keysAndRow = 0, ...stages } = best;
stages.row = keysAndRow - (stages.keys ?? 0);
const order = ['page', 'check', 'keys', 'row', 'sha256', 'encode', 'gzip'];
const us = Object.fromEntries(order.map((k) => [k, Math.round((stages[k] ?? 0) * 100) / 100]));
console.log(JSON.stringify({ bench: 'encode-alone', records, rounds, node: process.versions.node, us }));

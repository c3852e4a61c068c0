/**
 * One measurement of `pageCpu.ts`, in its own process: `node bin/run-ts.js tools/profile/pageCpuChild.ts
 * <bodies.json> <baseUrl> [rounds]`. Fetches the pages one at a time from `baseUrl` (a server of those bodies
 * in another process) with the archive's client (`createTunnelApiClient`: undici, the body read, `JSON.parse`,
 * `parseHistoryPage`) and takes each through the walk's per-page work on this thread (`pageAbsorber` with
 * `keyRecord` into a sink that
 * dedupes by `record_id` in an `IdSet` and builds each new row into a `RowChunkBuilder`, a chunk
 * structured-cloned as the hand-over to the encoding worker copies it, then encoded by a
 * `ParquetDraftWriter` to GZIP Parquet), and prints the CPU ms a page of each stage, as one JSON line:
 * the best of `rounds` (after one warm-up), each round a fresh set and file, as a fresh walk's. `fetch` is
 * the client's whole share (request, body, parse and check); `parse` and `check` are the same bodies'
 * `JSON.parse` and `parseHistoryPage` measured apart (not added to the total).
 * The encoding runs here, not in a worker, so its CPU is counted: under the function's quota the worker's
 * CPU is the walk's CPU.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ROW_GROUP_BYTES } from '../../lib/archive/parquet/historyParquetFile.ts';
import { ParquetDraftWriter } from '../../lib/archive/parquet/parquetDraftWriter.ts';
import { type RowChunk, RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { type KeyedRecord, keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import type { RejectedRecord } from '../../lib/archive/records/schemas.ts';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { parseHistoryPage } from '../../lib/archive/upstream/parseResponses.ts';
import { pageAbsorber } from '../../lib/archive/walk/pageAbsorber.ts';
import { IdSet } from '../../lib/foundation/ids/idSet.ts';

const bodies = JSON.parse(await readFile(process.argv[2] as string, 'utf8')) as string[];
const baseUrl = process.argv[3] as string;
const rounds = Number(process.argv[4] ?? 5);
const client = createTunnelApiClient({ baseUrl, apiKey: 'page-cpu-measurement-key' });
const CHUNK_ROWS = 1024;
const now = new Date('2026-11-29T00:00:00Z');
const tokenKey = new Uint8Array(32).fill(7);
const opts = { tokenPolicy: 'hash' as const, tokenKey, archivedAt: now };

const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

const STAGES = ['fetch', 'absorb', 'handOver', 'encode'] as const;
type Stage = (typeof STAGES)[number];

async function round(dir: string, n: number): Promise<Record<Stage, number> & { records: number }> {
  const ms: Record<Stage, number> = { fetch: 0, absorb: 0, handOver: 0, encode: 0 };
  const seen = new IdSet();
  let builder = new RowChunkBuilder();
  const chunks: RowChunk[] = [];
  const sink = {
    add(record: KeyedRecord): undefined {
      if (!seen.add(record.id)) return undefined;
      builder.push(record.row());
      if (builder.rows >= CHUNK_ROWS) {
        chunks.push(builder.take());
        builder = new RowChunkBuilder();
      }
      return undefined;
    },
  };
  const rejected = new Map<string, RejectedRecord>();
  const absorb = pageAbsorber({ sink, keyRecord: (r) => keyRecord(r, opts), tokenKey }, rejected);
  const writer = await ParquetDraftWriter.create(join(dir, `round-${n}.parquet`), {
    rowGroupSize: 100_000,
    rowGroupBytes: DEFAULT_ROW_GROUP_BYTES,
    compression: 'GZIP',
  });
  let records = 0;
  const handOver = async (): Promise<void> => {
    for (const chunk of chunks.splice(0)) {
      const t0 = cpu();
      const copy = structuredClone(chunk);
      const t1 = cpu();
      await writer.append(copy);
      ms.handOver += t1 - t0;
      ms.encode += cpu() - t1;
    }
  };
  const size = (JSON.parse(bodies[0] as string) as { size: number }).size;
  for (let n = 0; n < bodies.length; n++) {
    const t0 = cpu();
    const page = await client.historyPage('2026-11-26', '2026-11-26', n, size);
    const t1 = cpu();
    if (page.rejected.length > 0) throw new Error('a record was rejected');
    records += page.content.length;
    await absorb(page);
    ms.fetch += t1 - t0;
    ms.absorb += cpu() - t1;
    await handOver();
  }
  if (builder.rows > 0) chunks.push(builder.take());
  await handOver();
  const t = cpu();
  await writer.finish();
  ms.encode += cpu() - t;
  if (rejected.size > 0) throw new Error(`${rejected.size} records rejected`);
  return { ...ms, records };
}

/** `JSON.parse` and `parseHistoryPage` of every body, apart from the walk. */
function parseAndCheck(): { parse: number; check: number } {
  const out = { parse: 0, check: 0 };
  for (const body of bodies) {
    const t0 = cpu();
    const json: unknown = JSON.parse(body);
    const t1 = cpu();
    const page = parseHistoryPage(json, now);
    out.parse += t1 - t0;
    out.check += cpu() - t1;
    if (!page.ok) throw new Error(`a page failed its check: ${page.summary}`);
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), 'ta-page-cpu-'));
try {
  let best: (Record<Stage, number> & { total: number; records: number }) | undefined;
  let apart = { parse: Number.POSITIVE_INFINITY, check: Number.POSITIVE_INFINITY };
  for (let n = 0; n <= rounds; n++) {
    const r = await round(dir, n);
    const total = STAGES.reduce((sum, s) => sum + r[s], 0);
    if (n > 0 && (best === undefined || total < best.total)) best = { ...r, total };
    const pc = parseAndCheck();
    if (n > 0 && pc.parse + pc.check < apart.parse + apart.check) apart = pc;
    await rm(join(dir, `round-${n}.parquet`), { force: true });
  }
  if (!best) throw new Error('no round measured');
  const perPage = (ms: number): number => Math.round((ms / bodies.length) * 1000) / 1000;
  console.log(
    JSON.stringify({
      pages: bodies.length,
      records: best.records,
      msPerPage: Object.fromEntries(
        [...STAGES, 'total'].map((s) => [s, perPage(best[s as Stage | 'total'])]),
      ),
    }),
  );
} finally {
  await client.close();
  await rm(dir, { recursive: true, force: true });
}

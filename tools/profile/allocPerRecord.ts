/**
 * `node bin/run-ts.js tools/profile/allocPerRecord.ts [scale] [walk | encode]`: the bytes each record allocates,
 * by the function that allocates them, for the emulator's 60 days scaled ×`scale` (default 5), pages fetched
 * once and held in memory. V8's sampling heap profiler runs with the objects scavenges and mark-compacts free
 * counted too, so garbage shows as well as what lives:
 * - `walk`: the walk thread's work a page at a time: `JSON.parse`, the wire check, keying, the draft row, the
 *   chunk, and the chunk's bytes as `postMessage` writes them (`v8.serialize`);
 * - `encode` (default): the encoder's: each chunk read back from those bytes (`v8.deserialize`) and written
 *   into its partition's Parquet file (`ParquetDraftWriter`: row groups, columns, `session_id`, GZIP).
 * Prints one JSON line (records, MB allocated, bytes a record), then the top 30 allocating functions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { scaledPageBodies } from '../../bench/scaledPageBodies.ts';
import { DEFAULT_ROW_GROUP_BYTES } from '../../lib/archive/parquet/historyParquetFile.ts';
import { ParquetDraftWriter } from '../../lib/archive/parquet/parquetDraftWriter.ts';
import { CHUNK_ROWS, type RowChunk, RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import { parseHistoryPage } from '../../lib/archive/upstream/parseResponses.ts';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const scale = Number(process.argv[2] ?? 5);
const stage = process.argv[3] ?? 'encode';
if (stage !== 'walk' && stage !== 'encode') throw new Error(`stage must be walk or encode, got ${stage}`);

const bodies = await scaledPageBodies(scale);

const session = new Session();
session.connect();
const sampling = {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
};
const stop = async () =>
  ((await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } }).profile;

// The walk: each page parsed, checked and keyed; its rows into chunks by partition, each chunk serialized.
const now = new Date();
const opts = { tokenPolicy: 'hash' as const, tokenKey: new Uint8Array(32).fill(7), archivedAt: now };
if (stage === 'walk') await session.post('HeapProfiler.startSampling', sampling as never);
const builders = new Map<string, RowChunkBuilder>();
const wire = new Map<string, Buffer[]>();
const send = (dt: string, chunk: RowChunk) => {
  const list = wire.get(dt) ?? [];
  if (list.length === 0) wire.set(dt, list);
  list.push(serialize(chunk));
};
let records = 0;
for (const body of bodies) {
  const page = parseHistoryPage(JSON.parse(body), now);
  if (!page.ok) throw new Error('a page failed its check');
  for (const record of page.value.content) {
    const keyed = keyRecord(record, opts);
    if (!keyed.ok) throw new Error(keyed.reason);
    records++;
    let builder = builders.get(keyed.keyed.dt);
    if (builder === undefined) {
      builder = new RowChunkBuilder();
      builders.set(keyed.keyed.dt, builder);
    }
    builder.push(keyed.keyed.draftRow());
    if (builder.rows >= CHUNK_ROWS) send(keyed.keyed.dt, builder.take());
  }
}
for (const [dt, builder] of builders) if (builder.rows > 0) send(dt, builder.take());

let profile: { head: ProfileNode };
if (stage === 'walk') profile = await stop();
else {
  // The encoder: each chunk read back as the worker reads its message, and written into its file.
  const dir = await mkdtemp(join(tmpdir(), 'ta-alloc-'));
  try {
    await session.post('HeapProfiler.startSampling', sampling as never);
    for (const [dt, chunks] of wire) {
      const writer = await ParquetDraftWriter.create(join(dir, `${dt}.parquet`), {
        rowGroupSize: 100_000,
        rowGroupBytes: DEFAULT_ROW_GROUP_BYTES,
        compression: 'GZIP',
      });
      for (const bytes of chunks) await writer.append(deserialize(bytes) as RowChunk);
      await writer.finish();
    }
    profile = await stop();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
session.disconnect();

const byFunction = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode): void => {
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.split('/').at(-1)}:${lineNumber}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child);
};
walk(profile.head);
console.log(
  JSON.stringify({
    stage,
    records,
    allocatedMB: +(total / 1e6).toFixed(1),
    bytesPerRecord: Math.round(total / records),
  }),
);
for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${String(Math.round(bytes / records)).padStart(6)} B a record  ${key}`);
}

/**
 * Benchmark: stream N synthetic archive rows (default 1 000 000) into one Parquet file and print rows/s,
 * file size and peak RSS as JSON. Usage: `npx tsx bench/parquetWrite.ts [rows] [rowGroupSize] [SNAPPY|ZSTD]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ParquetCompression } from '../lib/parquet/parquetCompression.ts';
import { DEFAULT_ROW_GROUP_SIZE, writeHistoryParquet } from '../lib/parquet/writeHistoryParquet.ts';
import { syntheticRows } from './syntheticRows.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const rowGroupSize = Number(process.argv[3] ?? DEFAULT_ROW_GROUP_SIZE);
const compression = (process.argv[4] ?? 'SNAPPY') as ParquetCompression;

const dir = await mkdtemp(join(tmpdir(), 'parquet-bench-'));
const file = join(dir, 'history.parquet');
try {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const result = await writeHistoryParquet(syntheticRows(rows), file, { rowGroupSize, compression });
  const seconds = (performance.now() - started) / 1000;
  const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
  console.log(
    JSON.stringify({
      rows: result.rows,
      rowGroupSize,
      compression,
      seconds: Math.round(seconds * 100) / 100,
      rowsPerSecond: Math.round(result.rows / seconds),
      fileBytes: result.bytes,
      fileMB: mb(result.bytes),
      bytesPerRow: Math.round((result.bytes / result.rows) * 10) / 10,
      rssBeforeMB: mb(rssBefore),
      // maxRSS is in KiB and covers the whole process lifetime, including module loading.
      peakRssMB: mb(process.resourceUsage().maxRSS * 1024),
      node: process.versions.node,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Child process of zstdRoundTrip.int.test.ts: writes the edge-case rows with the runtime's default codec
 * (no option given) to argv[2] and prints what this runtime is and chose, as one JSON line.
 */
import { DEFAULT_PARQUET_COMPRESSION } from '../../lib/parquet/parquetCompression.ts';
import { writeHistoryParquet } from '../../lib/parquet/writeHistoryParquet.ts';
import { edgeCaseRows } from './historyRows.ts';

const [path] = process.argv.slice(2) as [string];
const written = await writeHistoryParquet(edgeCaseRows(), path, { rowGroupSize: 4 });
console.log(
  JSON.stringify({ node: process.versions.node, compression: DEFAULT_PARQUET_COMPRESSION, ...written }),
);

import { readFile } from 'node:fs/promises';
import { DEFAULT_PARQUET_COMPRESSION } from '../../lib/archive/parquet/parquetCompression.ts';
import { addHexIdColumn } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
/**
 * Child process of zstdRoundTrip.int.test.ts: writes the edge-case rows with the runtime's default codec
 * (no option given) to argv[2], reads their ids back as the committer does (this runtime's decompressors),
 * and prints what this runtime is and chose, and the ids it read, as one JSON line.
 */
import { IdSet } from '../../lib/foundation/ids/idSet.ts';
import { edgeCaseRows } from './historyRows.ts';

const [path] = process.argv.slice(2) as [string];
const written = await writeHistoryParquet(edgeCaseRows(), path, { rowGroupSize: 4 });
const ids = new IdSet();
await addHexIdColumn(await readFile(path), 'record_id', ids);
console.log(
  JSON.stringify({
    node: process.versions.node,
    compression: DEFAULT_PARQUET_COMPRESSION,
    ...written,
    idsRead: [...ids].sort(),
  }),
);

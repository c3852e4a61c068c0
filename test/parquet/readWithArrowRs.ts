import { Compression, readParquet, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';

/**
 * Every row of a Parquet file as decoded by arrow-rs (parquet-wasm), the third reader beside DuckDB and
 * hyparquet. parquet-wasm hands back Arrow data, and no Arrow JS library is installed, so arrow-rs
 * re-encodes what it decoded as an uncompressed, PLAIN Parquet file that hyparquet then turns into objects.
 * Any value arrow-rs misread (codec, encoding, nulls, lists, timestamps) shows up as a different row.
 */
export async function readWithArrowRs(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const table = readParquet(bytes);
  const props = new WriterPropertiesBuilder()
    .setCompression(Compression.UNCOMPRESSED)
    .setDictionaryEnabled(false)
    .build();
  const plain = writeParquet(table, props);
  return readHistoryRows(plain);
}

/** Rows arrow-rs decodes from a file (every page of every column is decompressed and decoded). */
export function arrowRsRowCount(bytes: Uint8Array): number {
  const table = readParquet(bytes);
  try {
    return table.recordBatches().reduce((n, batch) => n + batch.numRows, 0);
  } finally {
    table.free();
  }
}

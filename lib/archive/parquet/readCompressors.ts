import * as zlib from 'node:zlib';
import type { Compressors } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * The decompressors every reader hands hyparquet: hyparquet-compressors' (every codec a Parquet file may
 * hold), with the archive's own codecs done by native zlib where the runtime has it: GZIP always, ZSTD
 * from Node 22.15 (the Lambda). Apart from the writer (`parquetCompression.ts`), so that the encoding
 * worker never loads the readers' codecs.
 */
export const READ_COMPRESSORS: Compressors = {
  ...compressors,
  GZIP: (input) => bytesOf(zlib.gunzipSync(input)),
  ...zstdDecompressor(),
};

function zstdDecompressor(): Compressors {
  const fn = (zlib as unknown as { zstdDecompressSync?: (input: Uint8Array) => Buffer }).zstdDecompressSync;
  return typeof fn === 'function' ? { ZSTD: (input) => bytesOf(fn(input)) } : {};
}

function bytesOf(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

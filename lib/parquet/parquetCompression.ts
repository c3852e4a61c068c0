import * as zlib from 'node:zlib';
import { ArchiverError } from '../errors/archiverError.ts';

export type ParquetCompression = 'ZSTD' | 'SNAPPY';

/**
 * SNAPPY is the default: hyparquet-writer 0.17 ships only a Snappy compressor, so SNAPPY output is the
 * same on every Node version. ZSTD (smaller files, fewer Athena bytes scanned) is opt-in and uses
 * `node:zlib`'s zstd, which exists from Node 22.15 / 23.8 (the Lambda runtime), not on Node 20.
 */
export const DEFAULT_PARQUET_COMPRESSION: ParquetCompression = 'SNAPPY';

type ZstdCompressSync = (input: Uint8Array) => Buffer;

/** Extra compressors handed to hyparquet-writer (it brings Snappy itself). */
export interface ParquetCompressors {
  ZSTD?: (input: Uint8Array) => Uint8Array;
}

/** The compressor functions hyparquet-writer needs for `compression`; throws `CONFIG_INVALID` if unavailable. */
export function parquetCompressors(compression: ParquetCompression): ParquetCompressors {
  if (compression === 'SNAPPY') return {};
  const zstd = zstdCompressSync();
  if (!zstd) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Parquet compression ZSTD needs node:zlib zstd (Node >= 22.15), but this is Node ${process.versions.node}; use SNAPPY`,
    );
  }
  return { ZSTD: (input) => new Uint8Array(zstd(input)) };
}

/** Whether this runtime can write ZSTD Parquet. */
export function zstdAvailable(): boolean {
  return zstdCompressSync() !== undefined;
}

function zstdCompressSync(): ZstdCompressSync | undefined {
  const fn = (zlib as unknown as { zstdCompressSync?: ZstdCompressSync }).zstdCompressSync;
  return typeof fn === 'function' ? fn : undefined;
}

import * as zlib from 'node:zlib';
import { ArchiverError } from '../../foundation/index.ts';

/** The codecs the writer can write (`CODEC`, validated by `loadConfig`). */
export const PARQUET_COMPRESSIONS = ['ZSTD', 'GZIP', 'SNAPPY'] as const;
export type ParquetCompression = (typeof PARQUET_COMPRESSIONS)[number];

/**
 * ZSTD level used for every page. Level 3 is zstd's own default: on the archive's columns levels 1..12
 * land within 1% of each other in size, while 15+ costs over twice the CPU for about 3% (bench/RESULTS.md).
 */
export const ZSTD_LEVEL = 3;

/**
 * GZIP level where there is no zstd (Node 20): level 1, native zlib. Measured on the default dataset it is
 * within 2% of level 6 in size at about half its CPU, and it is both faster and much smaller than the
 * JavaScript Snappy the Parquet writer brings (bench/PROFILE.md).
 */
export const GZIP_LEVEL = 1;

type ZstdCompressSync = (input: Uint8Array, options?: { params?: Record<number, number> }) => Buffer;

/** Whether this runtime can write ZSTD Parquet (`node:zlib` zstd exists from Node 22.15 / 23.8). */
export function zstdAvailable(): boolean {
  return zstdCompressSync() !== undefined;
}

/**
 * The codec written when none is asked for: ZSTD wherever `node:zlib` has zstd (the Lambda's Node 24,
 * any Node >= 22.15), GZIP on older Node (Node 20 local mode), both native zlib. Every file records its
 * codec in its footer, and readers (DuckDB, Athena, hyparquet-compressors, arrow-rs) read all three.
 * SNAPPY (in JavaScript) can still be asked for explicitly.
 */
export function defaultParquetCompression(): ParquetCompression {
  // Read at load, before config exists; `loadConfig` rejects any other value before a file is written.
  const asked = process.env.CODEC;
  if (asked && (PARQUET_COMPRESSIONS as readonly string[]).includes(asked))
    return asked as ParquetCompression;
  return zstdAvailable() ? 'ZSTD' : 'GZIP';
}

/** The default codec of this runtime, fixed at load (see `defaultParquetCompression`). */
export const DEFAULT_PARQUET_COMPRESSION: ParquetCompression = defaultParquetCompression();

/** Extra compressors handed to hyparquet-writer (it brings Snappy itself). */
export interface ParquetCompressors {
  ZSTD?: (input: Uint8Array) => Uint8Array;
  GZIP?: (input: Uint8Array) => Uint8Array;
}

/** The compressor functions hyparquet-writer needs for `compression`; throws `CONFIG_INVALID` if unavailable. */
export function parquetCompressors(compression: ParquetCompression): ParquetCompressors {
  if (compression === 'SNAPPY') return {};
  if (compression === 'GZIP') {
    return { GZIP: (input) => toUint8Array(zlib.gzipSync(input, { level: GZIP_LEVEL })) };
  }
  const zstd = zstdCompressSync();
  if (!zstd) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Parquet compression ZSTD needs node:zlib zstd (Node >= 22.15), but this is Node ${process.versions.node}; use GZIP`,
    );
  }
  const levelParam = (zlib.constants as unknown as Record<string, number>).ZSTD_c_compressionLevel;
  const options = levelParam === undefined ? undefined : { params: { [levelParam]: ZSTD_LEVEL } };
  return { ZSTD: (input) => toUint8Array(zstd(input, options)) };
}

function toUint8Array(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function zstdCompressSync(): ZstdCompressSync | undefined {
  const fn = (zlib as unknown as { zstdCompressSync?: ZstdCompressSync }).zstdCompressSync;
  return typeof fn === 'function' ? fn : undefined;
}

import * as zlib from 'node:zlib';
import { ArchiverError } from '../../foundation/index.ts';

/** The codecs the writer can write (`CODEC`, validated by `loadConfig`). */
export const PARQUET_COMPRESSIONS = ['ZSTD', 'GZIP', 'SNAPPY'] as const;
export type ParquetCompression = (typeof PARQUET_COMPRESSIONS)[number];

/**
 * ZSTD level used for every page: 1. On the archive's columns it is both the fastest and the smallest of the
 * levels tried. Measured page by page over the 1M backfill on Node 24 (bench/PROFILE.md): level 1 took 381 ms
 * and 73.4 MB where level 3 (zstd's own default) took 1,091 ms and 75.3 MB; on the hex ids level 3 finds
 * matches that cost more than the characters they replace (17.2 against 15.4 MB a column). Whole runs: the
 * default dataset 0.2% and a 100k day 5.4% smaller than at level 3.
 */
export const ZSTD_LEVEL = 1;

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

/**
 * Compressors for a column of hex digests (`record_id`, `session_id`), merged over the file's own: their
 * characters are uniformly random, so GZIP's string matching only spends time finding matches that cost more
 * than the characters they replace, and entropy coding alone (`Z_HUFFMAN_ONLY`) is both faster and smaller:
 * over the 1M backfill's `record_id` pages, 184 ms and 15.6 MB against level 1's 657 ms and 16.6 MB
 * (bench/PROFILE.md). ZSTD at {@link ZSTD_LEVEL} is already as small there, and SNAPPY is the library's.
 */
export const DIGEST_COMPRESSORS: ParquetCompressors = {
  GZIP: (input) =>
    toUint8Array(zlib.gzipSync(input, { level: GZIP_LEVEL, strategy: zlib.constants.Z_HUFFMAN_ONLY })),
};

function toUint8Array(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function zstdCompressSync(): ZstdCompressSync | undefined {
  const fn = (zlib as unknown as { zstdCompressSync?: ZstdCompressSync }).zstdCompressSync;
  return typeof fn === 'function' ? fn : undefined;
}

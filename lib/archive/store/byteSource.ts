import { type FileHandle, open, stat } from 'node:fs/promises';
import { ArchiverError } from '../../foundation/index.ts';
import type { ObjectStore } from './objectStore.ts';

/**
 * Random access to one file's bytes: in memory, or ranged reads of a stored object. Readers that take a
 * source (Parquet footers and single columns, hashes) fetch only the ranges they need, so a large file
 * is never held whole in memory.
 */
export interface ByteSource {
  readonly byteLength: number;
  /** Bytes `[start, end)`; with `into`, possibly a view of it (see `ObjectStore.getRange`). */
  read(start: number, end: number, into?: Uint8Array): Promise<Uint8Array>;
}

/** Bytes already in memory. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { byteLength: bytes.byteLength, read: async (start, end) => bytes.subarray(start, end) };
}

/** A stored object of `size` bytes, read by ranges; a range that vanished mid-read is `STORE_FAILED`. */
export function objectSource(objects: ObjectStore, key: string, size: number): ByteSource {
  return {
    byteLength: size,
    read: async (start, end, into) => {
      const bytes = await objects.getRange(key, start, end, into);
      if (bytes === undefined) throw new ArchiverError('STORE_FAILED', `${key} vanished while being read`);
      return bytes;
    },
  };
}

/** A source of either kind. */
export function toSource(source: ByteSource | Uint8Array): ByteSource {
  return source instanceof Uint8Array ? bytesSource(source) : source;
}

/** A local file, read by ranges (each read opens and closes it: for rare, sequential readers). */
export async function localFileSource(path: string): Promise<ByteSource> {
  const { size } = await stat(path);
  return {
    byteLength: size,
    read: async (start, end, into) => {
      const handle = await open(path, 'r');
      try {
        return await readRange(handle, start, Math.min(end, size), into);
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * Reads bytes [start, end) of an open file; shorter only when the file ends first. Into `into` when it
 * is big enough (the result is then a view of it).
 */
export async function readRange(
  handle: FileHandle,
  start: number,
  end: number,
  into?: Uint8Array,
): Promise<Uint8Array> {
  const length = Math.max(0, end - start);
  const out =
    into !== undefined && into.byteLength >= length ? into.subarray(0, length) : new Uint8Array(length);
  let done = 0;
  while (done < out.byteLength) {
    const { bytesRead } = await handle.read(out, done, out.byteLength - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === out.byteLength ? out : out.subarray(0, done);
}

import { randomUUID } from 'node:crypto';
import { ArchiverError, mapLimit } from '../../foundation/index.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

/** Chunk items of a state too big for one item: `ACTIVE#<version>#<nonce>#<i>`. */
export const ACTIVE_CHUNK_PREFIX = 'ACTIVE#';

/** Bytes of compressed state per chunk item: under DynamoDB's 400 KB item limit with room for the key. */
export const CHUNK_BYTES = 380_000;

/** Chunk reads and deletes in flight at once. */
const CHUNK_CONCURRENCY = 8;

/** Where a head item's data lives when it is chunked: `n` items named `${prefix}${i}`. */
export interface ChunkRef {
  prefix: string;
  n: number;
}

/** The chunks a head item names (its `data` is `{"chunks":{"prefix":…,"n":…}}`), when it names any. */
export function chunkRefOf(item: VersionedItem | undefined): ChunkRef | undefined {
  // A head with bytes holds its data itself; the test on the text spares parsing a big inline JSON state.
  if (item === undefined || item.bytes !== undefined || !item.data.includes('"chunks"')) return undefined;
  let chunks: { prefix?: unknown; n?: unknown } | undefined;
  try {
    chunks = (JSON.parse(item.data) as { chunks?: typeof chunks } | null)?.chunks;
  } catch {
    return undefined;
  }
  const { prefix, n } = chunks ?? {};
  if (typeof prefix !== 'string' || typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)
    return undefined;
  return { prefix, n };
}

const chunkKeys = (ref: ChunkRef): string[] => Array.from({ length: ref.n }, (_, i) => `${ref.prefix}${i}`);

/**
 * Writes `bytes` as chunk items under a fresh name (`ACTIVE#<version>#<nonce>#`) that no other writer
 * can use, then points the head item `pk` at them with its conditional write (`version`: the one read).
 * Chunks are never overwritten, so a reader that holds an older head reads whole, consistent old data (or
 * finds it deleted and re-reads the head). A head write whose answer was lost is settled by re-reading
 * which chunks the head names; a head write that lost deletes its chunks and fails.
 */
export async function putChunkedHead(
  items: VersionedItems,
  pk: string,
  version: number,
  bytes: Uint8Array,
): Promise<void> {
  const mine = {
    prefix: `${ACTIVE_CHUNK_PREFIX}${version + 1}#${randomUUID().slice(0, 8)}#`,
    n: Math.ceil(bytes.byteLength / CHUNK_BYTES),
  };
  const slices = chunkKeys(mine).map((key, i) => ({
    key,
    bytes: bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
  }));
  await mapLimit(slices, CHUNK_CONCURRENCY, (chunk) =>
    items.put(chunk.key, 0, '{}', chunk.bytes).catch((error: unknown) => {
      // No other writer uses this name: a conflict is this write's own lost answer, retried.
      if (!ArchiverError.is(error, 'CONFLICT')) throw error;
    }),
  );
  try {
    await items.put(pk, version, JSON.stringify({ chunks: mine }));
  } catch (error) {
    // Applied, but the answer was lost (the SDK's retry then fails its own condition)?
    const now = await items.get(pk).catch(() => undefined);
    if (chunkRefOf(now)?.prefix !== mine.prefix) {
      await deleteChunks(items, mine);
      throw error;
    }
  }
}

/** The chunks' bytes joined, or undefined when any chunk is gone (a newer head replaced them). */
export async function readChunks(items: VersionedItems, ref: ChunkRef): Promise<Uint8Array | undefined> {
  const parts = await mapLimit(
    chunkKeys(ref),
    CHUNK_CONCURRENCY,
    async (key) => (await items.get(key))?.bytes,
  );
  if (parts.some((p) => p === undefined)) return undefined;
  return Buffer.concat(parts as Uint8Array[]);
}

/** Deletes chunk items; best effort (a leftover chunk is only unused space, never read again). */
export async function deleteChunks(items: VersionedItems, ref: ChunkRef): Promise<void> {
  await mapLimit(chunkKeys(ref), CHUNK_CONCURRENCY, (key) => items.delete(key).catch(() => undefined));
}

/** A head that names chunks that are gone, on several reads in a row: only a manual delete does that. */
export function chunksLost(pk: string, where: string, ref: ChunkRef): ArchiverError {
  return new ArchiverError(
    'STORE_FAILED',
    `state item '${pk}' ${where} names chunks ${ref.prefix}0..${ref.n - 1} that are gone: delete the '${pk}' item and the next run rebuilds it from the archive`,
    { retryable: false, details: { pk, prefix: ref.prefix, n: ref.n } },
  );
}

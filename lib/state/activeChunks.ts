import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ArchiverError } from '../errors/archiverError.ts';
import { mapLimit } from '../util/mapLimit.ts';

type Item = Record<string, AttributeValue>;

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

/** The `chunks` attribute of a head item, when it has one. */
export function chunkRefOf(item: Item | undefined): ChunkRef | undefined {
  const m = item?.chunks?.M;
  const prefix = m?.prefix?.S;
  const n = Number(m?.n?.N);
  if (prefix === undefined || !Number.isSafeInteger(n) || n < 1) return undefined;
  return { prefix, n };
}

export function chunkRefAttribute(ref: ChunkRef): Item {
  return { chunks: { M: { prefix: { S: ref.prefix }, n: { N: String(ref.n) } } } };
}

/**
 * Writes `bytes` as chunk items under a fresh name (`ACTIVE#<version>#<nonce>#`) that no other writer
 * can use: the caller then points the head item at them with its own conditional write. Chunks are never
 * overwritten, so a reader that holds an older head reads whole, consistent old data (or finds it deleted
 * and re-reads the head).
 */
export async function writeChunks(
  client: DynamoDBClient,
  table: string,
  version: number,
  bytes: Uint8Array,
): Promise<ChunkRef> {
  const ref = {
    prefix: `${ACTIVE_CHUNK_PREFIX}${version}#${randomUUID().slice(0, 8)}#`,
    n: Math.ceil(bytes.byteLength / CHUNK_BYTES),
  };
  await mapLimit(
    Array.from({ length: ref.n }, (_, i) => i),
    CHUNK_CONCURRENCY,
    async (i) => {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: {
            pk: { S: `${ref.prefix}${i}` },
            part: { B: bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES) },
          },
        }),
      );
    },
  );
  return ref;
}

/** The chunks' bytes joined, or undefined when any chunk is gone (a newer head replaced them). */
export async function readChunks(
  client: DynamoDBClient,
  table: string,
  ref: ChunkRef,
): Promise<Uint8Array | undefined> {
  const parts = await mapLimit(
    Array.from({ length: ref.n }, (_, i) => i),
    CHUNK_CONCURRENCY,
    async (i) => {
      const out = await client.send(
        new GetItemCommand({
          TableName: table,
          Key: { pk: { S: `${ref.prefix}${i}` } },
          ConsistentRead: true,
        }),
      );
      return out.Item?.part?.B;
    },
  );
  if (parts.some((p) => p === undefined)) return undefined;
  const joined = new Uint8Array(parts.reduce((a, p) => a + (p as Uint8Array).byteLength, 0));
  let at = 0;
  for (const p of parts as Uint8Array[]) {
    joined.set(p, at);
    at += p.byteLength;
  }
  return joined;
}

/** Deletes chunk items; best effort (a leftover chunk is only unused space, never read again). */
export async function deleteChunks(client: DynamoDBClient, table: string, ref: ChunkRef): Promise<void> {
  await mapLimit(
    Array.from({ length: ref.n }, (_, i) => i),
    CHUNK_CONCURRENCY,
    async (i) => {
      await client
        .send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: `${ref.prefix}${i}` } } }))
        .catch(() => undefined);
    },
  );
}

/** A head that names chunks that are gone, on several reads in a row: only a manual delete does that. */
export function chunksLost(pk: string, table: string, ref: ChunkRef): ArchiverError {
  return new ArchiverError(
    'STORE_FAILED',
    `state item '${pk}' in table '${table}' names chunks ${ref.prefix}0..${ref.n - 1} that are gone: delete the '${pk}' item and the next run rebuilds it from the archive`,
    { retryable: false, details: { pk, prefix: ref.prefix, n: ref.n } },
  );
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ArchiverError, sha256OfFile } from '../../foundation/index.ts';
import { assertObjectKey, storeFailed } from './objectKey.ts';
import type { ObjectInfo, ObjectStore } from './objectStore.ts';
import { retryS3Stream } from './retryS3Stream.ts';
import { sameObjectBytes, writeOnceConflict } from './writeOnceConflict.ts';

export interface S3ObjectStoreOptions {
  client: S3Client;
  bucket: string;
  /** Folder inside the bucket; keys are stored as `<prefix>/<key>`. */
  prefix?: string;
}

/** 412: a conditional write found an object already there (`If-None-Match: *`). */
function isPreconditionFailed(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return (
    e?.name === 'PreconditionFailed' ||
    e?.Code === 'PreconditionFailed' ||
    e?.$metadata?.httpStatusCode === 412
  );
}

/** 409 ConditionalRequestConflict: a concurrent conditional write to the same key; the outcome is unknown. */
function isConditionalConflict(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'ConditionalRequestConflict' || e?.$metadata?.httpStatusCode === 409;
}

/** Tries of a write-once write against racing writers (409 ConditionalRequestConflict, 412). */
const CONFLICT_ATTEMPTS = 8;

/** A 409 means another conditional write to the key is in flight: back off (25 ms doubling, jittered). */
function conflictBackoff(attempt: number): Promise<void> {
  const ms = Math.min(1_000, 25 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return (
    e?.name === 'NoSuchKey' ||
    e?.name === 'NotFound' ||
    e?.Code === 'NoSuchKey' ||
    e?.$metadata?.httpStatusCode === 404
  );
}

/** `CopySource` is `bucket/key` URL-encoded per segment (keys carry `=` from Hive partitions). */
function copySource(bucket: string, key: string): string {
  // '=' (Hive partitions) is kept literal: S3 accepts it, and s3rver does not decode '%3D'.
  return `${bucket}/${key
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/%3D/g, '='))
    .join('/')}`;
}

/**
 * ObjectStore over one S3 bucket and prefix. S3 PUTs are atomic already; `publish` is
 * Head → Copy (`If-None-Match: *`) → Delete, which never replaces an existing target and is safe to
 * repeat after a crash; `putIfAbsent` is a conditional PutObject.
 */
export function createS3ObjectStore(opts: S3ObjectStoreOptions): ObjectStore {
  const { client, bucket } = opts;
  const root = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const rootSlash = root === '' ? '' : `${root}/`;
  const url = `s3://${bucket}/${root}`;
  const where = (key: string): string => `s3://${bucket}/${rootSlash}${key}`;

  const fullKey = (key: string): string => {
    assertObjectKey(key);
    return `${rootSlash}${key}`;
  };

  const headObject = async (key: string): Promise<{ size: number; modifiedAt?: Date } | undefined> => {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
      return { size: out.ContentLength ?? 0, ...(out.LastModified ? { modifiedAt: out.LastModified } : {}) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  /**
   * A GetObject's bytes. The SDK retries the request, but not the body it streams after `send` returned:
   * a body cut short (a reset, a timeout) is read again from a new GET.
   */
  const getBytes = (input: { Bucket: string; Key: string; Range?: string }): Promise<Uint8Array> => {
    const bodyFailures = new WeakSet<object>();
    return retryS3Stream(
      async () => {
        const out = await client.send(new GetObjectCommand(input));
        try {
          return out.Body === undefined ? new Uint8Array() : await out.Body.transformToByteArray();
        } catch (error) {
          if (typeof error === 'object' && error !== null) bodyFailures.add(error);
          throw error;
        }
      },
      (error) => typeof error === 'object' && error !== null && bodyFailures.has(error),
    );
  };

  const headSize = async (key: string): Promise<number | undefined> => (await headObject(key))?.size;

  const deleteKey = async (key: string): Promise<void> => {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
  };

  /** One small PutObject (optionally conditional, e.g. `IfNoneMatch: '*'`). */
  const putCommand = (key: string, bytes: Uint8Array, condition: { IfNoneMatch?: string } = {}) =>
    new PutObjectCommand({
      Bucket: bucket,
      Key: fullKey(key),
      Body: bytes,
      ContentLength: bytes.byteLength,
      // S3 checks and keeps the object's full SHA-256, which the weekly verify compares with the digest
      // without a read. Sent as a header computed here (the SDK's own would stream it as an aws-chunked
      // trailer, which S3-compatible servers store as part of the body).
      ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'),
      // A page opened from a presigned URL must be served as HTML, not downloaded.
      ...(key.endsWith('.html') ? { ContentType: 'text/html; charset=utf-8' } : {}),
      ...condition,
    });

  const store: ObjectStore = {
    url,

    async putFile(key, localPath) {
      try {
        const { size } = await stat(localPath);
        // The full-object checksum S3 checks and keeps.
        const checksum = await sha256OfFile(localPath, 'base64');
        // The SDK never replays a streamed body, so a reset connection, a 5xx or a SlowDown would end
        // the upload at its first try: each try here opens the file again (the same bytes to the same key).
        await retryS3Stream(async () => {
          const body = createReadStream(localPath);
          try {
            await client.send(
              new PutObjectCommand({
                Bucket: bucket,
                Key: fullKey(key),
                Body: body,
                ContentLength: size,
                ChecksumSHA256: checksum,
              }),
            );
          } finally {
            body.destroy();
          }
        });
        return size;
      } catch (error) {
        throw storeFailed(`cannot upload '${localPath}' to ${where(key)}`, error);
      }
    },

    async put(key, body) {
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      try {
        await client.send(putCommand(key, bytes));
        return bytes.byteLength;
      } catch (error) {
        throw storeFailed(`cannot write ${where(key)}`, error);
      }
    },

    async putIfAbsent(key, body) {
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      // The HEAD saves a PUT in the common case and keeps the contract on servers that ignore the header.
      if ((await headSize(key).catch(() => undefined)) !== undefined) return false;
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(putCommand(key, bytes, { IfNoneMatch: '*' }));
          return true;
        } catch (error) {
          if (isPreconditionFailed(error)) return false;
          // A racing conditional write is in flight (409): wait, re-read, and retry only while nothing is there.
          if (isConditionalConflict(error) && attempt < CONFLICT_ATTEMPTS) {
            await conflictBackoff(attempt);
            if ((await headSize(key).catch(() => undefined)) !== undefined) return false;
            continue;
          }
          throw storeFailed(`cannot write ${where(key)}`, error);
        }
      }
    },

    async get(key) {
      try {
        return await getBytes({ Bucket: bucket, Key: fullKey(key) });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw storeFailed(`cannot read ${where(key)}`, error);
      }
    },

    async getRange(key, start, end) {
      if (end <= start) return new Uint8Array();
      try {
        return await getBytes({ Bucket: bucket, Key: fullKey(key), Range: `bytes=${start}-${end - 1}` });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        // A range past the end of the object: nothing there.
        if ((error as { name?: string }).name === 'InvalidRange') return new Uint8Array();
        throw storeFailed(`cannot read ${where(key)}`, error);
      }
    },

    async head(key) {
      try {
        const info = await headObject(key);
        return info === undefined ? undefined : { key, ...info };
      } catch (error) {
        throw storeFailed(`cannot stat ${where(key)}`, error);
      }
    },

    async storedChecksum(key) {
      try {
        const out = await client.send(
          new HeadObjectCommand({ Bucket: bucket, Key: fullKey(key), ChecksumMode: 'ENABLED' }),
        );
        const size = out.ContentLength ?? 0;
        // A multipart upload's checksum is of its parts (COMPOSITE, `…-N`): not the object's SHA-256.
        const full = out.ChecksumType === undefined || out.ChecksumType === 'FULL_OBJECT';
        const sha = out.ChecksumSHA256;
        return full && sha !== undefined && !sha.includes('-')
          ? { size, sha256: Buffer.from(sha, 'base64').toString('hex') }
          : { size };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw storeFailed(`cannot stat ${where(key)}`, error);
      }
    },

    async *list(prefix): AsyncGenerator<ObjectInfo> {
      let token: string | undefined;
      do {
        let page: ListObjectsV2CommandOutput;
        try {
          page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: `${rootSlash}${prefix}`,
              ...(token === undefined ? {} : { ContinuationToken: token }),
            }),
          );
        } catch (error) {
          throw storeFailed(`cannot list ${where(prefix)}`, error);
        }
        for (const obj of page.Contents ?? []) {
          if (obj.Key === undefined || !obj.Key.startsWith(rootSlash)) continue;
          yield {
            key: obj.Key.slice(rootSlash.length),
            size: obj.Size ?? 0,
            ...(obj.LastModified ? { modifiedAt: obj.LastModified } : {}),
          };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    },

    async publish(fromKey, toKey) {
      try {
        for (let attempt = 1; ; attempt++) {
          if ((await headSize(toKey)) !== undefined) {
            // Target present (an earlier attempt of ours, or a racing writer that won): our bytes there
            // finish the publish by dropping the source; another writer's bytes fail loudly and keep ours.
            if ((await headSize(fromKey)) !== undefined && !(await sameObjectBytes(store, fromKey, toKey)))
              throw writeOnceConflict(fromKey, toKey);
            await deleteKey(fromKey);
            return;
          }
          try {
            await client.send(
              new CopyObjectCommand({
                Bucket: bucket,
                Key: fullKey(toKey),
                CopySource: copySource(bucket, fullKey(fromKey)),
                // Write-once: the bucket policy refuses a copy into history/ without it.
                IfNoneMatch: '*',
                // The published object keeps a full-object SHA-256 of its own (computed by S3 on copy).
                ChecksumAlgorithm: 'SHA256',
              }),
            );
            await deleteKey(fromKey);
            return;
          } catch (error) {
            // 412: the target appeared since the HEAD (a racing writer, or our own earlier attempt whose
            // response was lost); 409: a racing conditional write is in flight. Both: look again.
            if (isPreconditionFailed(error) || isConditionalConflict(error)) {
              if (attempt >= CONFLICT_ATTEMPTS) throw error;
              if (isConditionalConflict(error)) await conflictBackoff(attempt);
              continue;
            }
            if (!isNotFound(error)) throw error;
            // The source went since our look: another publisher of the same staged file (a run publishing
            // the snapshots' noted files beside the snapshot itself) moved it. Only a publish of this key
            // drops it (the sweep leaves files a day old), so a present target holds these bytes: done.
            if ((await headSize(toKey)) !== undefined) return;
            throw new ArchiverError('STORE_FAILED', `cannot publish ${where(fromKey)}: it does not exist`, {
              cause: error,
              retryable: false,
            });
          }
        }
      } catch (error) {
        throw storeFailed(`cannot publish ${where(fromKey)} as ${toKey}`, error);
      }
    },

    async deleteStaging(key) {
      try {
        await deleteKey(key);
      } catch (error) {
        if (isNotFound(error)) return;
        throw storeFailed(`cannot delete ${where(key)}`, error);
      }
    },
  };
  return store;
}

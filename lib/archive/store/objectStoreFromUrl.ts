import { S3Client } from '@aws-sdk/client-s3';
import { parseDestUrl } from '../../foundation/index.ts';
import { createFileObjectStore } from './fileObjectStore.ts';
import type { ObjectStore } from './objectStore.ts';
import { createS3ObjectStore } from './s3ObjectStore.ts';

export interface ObjectStoreDeps {
  s3Client?: S3Client;
}

/**
 * A client for S3 or an S3-compatible server. The SDK reads `AWS_ENDPOINT_URL_S3` itself; such servers
 * (MinIO, s3rver) want path-style addressing and no optional checksums (else bodies arrive aws-chunked).
 */
function defaultS3Client(): S3Client {
  if (process.env.AWS_ENDPOINT_URL_S3 === undefined || process.env.AWS_ENDPOINT_URL_S3 === '')
    return new S3Client({});
  return new S3Client({
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Builds the ObjectStore named by `ARCHIVE_DEST`: `file://DIR` (relative allowed, e.g. `file://./archive`),
 * `file:///abs/dir`, a bare path, or `s3://bucket/prefix` (parsed by `parseDestUrl`). Anything else is `CONFIG_INVALID`.
 * A client it builds itself is destroyed by the store's `close()`; an injected one is left to its owner.
 */
export function objectStoreFromUrl(url: string, deps: ObjectStoreDeps = {}): ObjectStore {
  const dest = parseDestUrl(url);
  if (dest.kind === 'file') return createFileObjectStore(dest.dir);
  const { bucket, prefix } = dest;
  if (deps.s3Client !== undefined) return createS3ObjectStore({ client: deps.s3Client, bucket, prefix });
  const client = defaultS3Client();
  return {
    ...createS3ObjectStore({ client, bucket, prefix }),
    async close() {
      client.destroy();
    },
  };
}

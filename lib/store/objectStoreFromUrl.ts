import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { ArchiverError } from '../errors/archiverError.ts';
import { createFileObjectStore } from './fileObjectStore.ts';
import type { ObjectStore } from './objectStore.ts';
import { createS3ObjectStore } from './s3ObjectStore.ts';

export interface ObjectStoreDeps {
  s3Client?: S3Client;
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function invalid(url: string, why?: string): ArchiverError {
  const reason = why === undefined ? '' : ` (${why})`;
  return new ArchiverError(
    'CONFIG_INVALID',
    `ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got '${url}'${reason}`,
  );
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
 * `file:///abs/dir`, a bare path, or `s3://bucket/prefix`. Anything else is `CONFIG_INVALID`.
 * A client it builds itself is destroyed by the store's `close()`; an injected one is left to its owner.
 */
export function objectStoreFromUrl(url: string, deps: ObjectStoreDeps = {}): ObjectStore {
  const trimmed = url.trim();
  if (trimmed === '') throw invalid(url, 'empty');

  if (trimmed.startsWith('s3://')) {
    const rest = trimmed.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
    if (!BUCKET_RE.test(bucket)) throw invalid(url, `'${bucket}' is not a valid bucket name`);
    if (prefix.split('/').some((s) => s === '.' || s === '..') || /\/\/|\\/.test(prefix)) {
      throw invalid(url, `'${prefix}' is not a valid key prefix`);
    }
    if (deps.s3Client !== undefined) return createS3ObjectStore({ client: deps.s3Client, bucket, prefix });
    const client = defaultS3Client();
    return {
      ...createS3ObjectStore({ client, bucket, prefix }),
      async close() {
        client.destroy();
      },
    };
  }

  if (trimmed.startsWith('file://')) {
    const rest = trimmed.slice('file://'.length);
    if (rest === '') throw invalid(url, 'no folder');
    // file:///abs is a real file URL; file://./rel and file://rel are the relative shorthand.
    let dir: string;
    try {
      dir = rest.startsWith('/') ? fileURLToPath(trimmed) : decodeURIComponent(rest);
    } catch (error) {
      throw new ArchiverError('CONFIG_INVALID', invalid(url, 'not a valid file URL').message, {
        cause: error,
      });
    }
    return createFileObjectStore(dir);
  }

  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(trimmed)) throw invalid(url, 'unsupported scheme');
  return createFileObjectStore(trimmed);
}

import crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface S3rverHandle {
  endpoint: string;
  bucket: string;
  client: S3Client;
  close(): Promise<void>;
}

let desPatched = false;

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 only offers
 * through the legacy provider (`--openssl-legacy-provider`). Triple DES with the key repeated three
 * times (K1 = K2 = K3) is the same cipher and is in the default provider, so the test process maps
 * `des` onto `des-ede3-cbc` instead of needing a NODE_OPTIONS flag. Only the exact name `des` is touched.
 */
function mapDesToTripleDes(): void {
  if (desPatched) return;
  desPatched = true;
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return; // legacy provider loaded: nothing to do
  } catch {
    // fall through: single DES unavailable
  }
  const tripled = (key: crypto.CipherKey): crypto.CipherKey =>
    Buffer.isBuffer(key) && key.length === 8 ? Buffer.concat([key, key, key]) : key;
  const { createCipheriv, createDecipheriv } = crypto;
  const patched = crypto as unknown as Record<string, unknown>;
  patched.createCipheriv = (alg: string, key: crypto.CipherKey, ...rest: unknown[]) =>
    alg === 'des'
      ? createCipheriv('des-ede3-cbc', tripled(key), ...(rest as [crypto.BinaryLike]))
      : (createCipheriv as (...a: unknown[]) => unknown)(alg, key, ...rest);
  patched.createDecipheriv = (alg: string, key: crypto.CipherKey, ...rest: unknown[]) =>
    alg === 'des'
      ? createDecipheriv('des-ede3-cbc', tripled(key), ...(rest as [crypto.BinaryLike]))
      : (createDecipheriv as (...a: unknown[]) => unknown)(alg, key, ...rest);
}

/**
 * Starts s3rver on 127.0.0.1 (random port) over a fresh temp folder with one bucket, and an S3 client
 * set up for it: path-style, fake credentials, and checksums only when required (otherwise the SDK
 * sends aws-chunked bodies that s3rver would store verbatim).
 */
export async function startS3rver(bucket = 'test-archive'): Promise<S3rverHandle> {
  mapDesToTripleDes();
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    client,
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

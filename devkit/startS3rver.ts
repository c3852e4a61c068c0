import crypto, { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';

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

let putPatched = false;

/**
 * S3 makes an object visible only once its whole body has arrived: a client killed mid-upload leaves
 * nothing behind. s3rver 3 writes straight into the object's file and answers before that file is
 * flushed, so a killed uploader leaves a torn object (an empty `key-check.json` wedged a kill test) and a
 * read right after a PUT can see a short one. This puts each body in a scratch file next to the object,
 * checks it against Content-Length, and renames it into place: the behaviour of the real service.
 */
function makePutsAtomic(): void {
  if (putPatched) return;
  putPatched = true;
  FilesystemStore.prototype.putObject = async function putObject(object) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(path.dirname(objectPath), { recursive: true });
    // Not a listed name: s3rver lists only files ending in `._S3rver_object`.
    const scratch = `${objectPath}.${randomUUID()}.partial`;
    const md5 = crypto.createHash('md5');
    let size = 0;
    try {
      const source = object.content instanceof Uint8Array ? Readable.from([object.content]) : object.content;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          md5.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      await pipeline(source, count, createWriteStream(scratch));
      // Only a request body carries its length (a multipart completion's stored headers do not).
      const declared = 'headers' in object.content ? object.metadata['content-length'] : undefined;
      if (declared !== undefined && Number(declared) !== size) {
        throw new Error(`incomplete body: ${size} of ${declared} bytes`);
      }
      const digest = md5.digest('hex');
      await this.putMetadata(object.bucket, object.key, object.metadata, digest);
      await rename(scratch, objectPath);
      return { size, md5: digest };
    } catch (error) {
      await rm(scratch, { force: true });
      throw error;
    }
  };
}

/**
 * Starts s3rver on 127.0.0.1 (random port) over a fresh temp folder with one bucket, and an S3 client
 * set up for it: path-style, fake credentials, and checksums only when required (otherwise the SDK
 * sends aws-chunked bodies that s3rver would store verbatim). PUTs are made atomic (see makePutsAtomic).
 */
export async function startS3rver(bucket = 'test-archive'): Promise<S3rverHandle> {
  mapDesToTripleDes();
  makePutsAtomic();
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
  const client = s3rverClient(endpoint);
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

/**
 * An S3 client for s3rver (or a front before it): path-style, its fake credentials, and checksums only
 * when required (otherwise the SDK sends aws-chunked bodies that s3rver would store verbatim).
 */
export function s3rverClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

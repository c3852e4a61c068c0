import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3rverClient, startS3rver } from '../../devkit/startS3rver.ts';
import { STREAM_ATTEMPTS } from '../../lib/archive/store/retryS3Stream.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { type S3Fault, type S3Request, startS3FaultProxy } from '../support/s3FaultProxy.ts';
import { serverPer } from '../support/serverPer.ts';

// The SDK retries a request on its own, except one whose body is a stream (it cannot replay it) and a
// response body read after `send` returned: the store's upload of a file and its reads must do it.
describe('createS3ObjectStore over a connection that fails', () => {
  const s3 = serverPer(startS3rver);
  let dir: string;
  let file: string;
  const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 251));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ta-s3-transient-'));
    file = path.join(dir, 'part.parquet');
    await writeFile(file, bytes);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A store whose client talks to s3rver through a proxy that applies `faultFor`. */
  async function storeBehind(faultFor: (r: S3Request) => S3Fault | undefined) {
    const proxy = await startS3FaultProxy(s3.endpoint, faultFor);
    const client = s3rverClient(proxy.url);
    const store = createS3ObjectStore({ client, bucket: s3.bucket, prefix: 'p' });
    return {
      store,
      proxy,
      puts: (key: string) => proxy.seen.filter((r) => r.method === 'PUT' && r.path.endsWith(key)).length,
      gets: (key: string) => proxy.seen.filter((r) => r.method === 'GET' && r.path.endsWith(key)).length,
      async close() {
        client.destroy();
        await proxy.close();
      },
    };
  }

  const stored = async (key: string): Promise<Buffer> => {
    const out = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `p/${key}` }));
    return Buffer.from((await out.Body?.transformToByteArray()) ?? []);
  };

  it.each<[string, S3Fault]>([
    ['the connection is reset under it', 'reset'],
    ['S3 answers 503 SlowDown', 'slow-down'],
  ])(
    'uploads a file whose first two tries fail because %s, with a new read of the file each try',
    async (_, fault) => {
      const key = `staging/${fault}/part.parquet`;
      const s = await storeBehind((r) => (r.method === 'PUT' && r.n <= 2 ? fault : undefined));
      try {
        expect(await s.store.putFile(key, file)).toBe(bytes.byteLength);
        expect(s.puts(key)).toBe(3);
        expect((await stored(key)).equals(bytes)).toBe(true);
      } finally {
        await s.close();
      }
    },
  );

  it(`gives up on an upload after ${STREAM_ATTEMPTS} tries, with STORE_FAILED naming the file`, async () => {
    const key = 'staging/always/part.parquet';
    const s = await storeBehind((r) => (r.method === 'PUT' ? 'reset' : undefined));
    try {
      const error = await s.store.putFile(key, file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ArchiverError);
      expect((error as ArchiverError).code).toBe('STORE_FAILED');
      expect((error as Error).message).toContain(`cannot upload '${file}'`);
      expect(s.puts(key)).toBe(STREAM_ATTEMPTS);
    } finally {
      await s.close();
    }
  });

  it('does not try an upload again when S3 refuses it (403)', async () => {
    const key = 'staging/denied/part.parquet';
    const s = await storeBehind((r) => (r.method === 'PUT' ? 'access-denied' : undefined));
    try {
      await expect(s.store.putFile(key, file)).rejects.toMatchObject({ code: 'STORE_FAILED' });
      expect(s.puts(key)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('reads an object again from a new GET when the first body is cut short', async () => {
    const key = 'history/dt=2026-11-05/cut.parquet';
    await s3.client.send(
      new (await import('@aws-sdk/client-s3')).PutObjectCommand({
        Bucket: s3.bucket,
        Key: `p/${key}`,
        Body: bytes,
      }),
    );
    const s = await storeBehind((r) => (r.method === 'GET' && r.n === 1 ? 'cut-body' : undefined));
    try {
      expect(Buffer.from((await s.store.get(key)) ?? []).equals(bytes)).toBe(true);
      expect(s.gets(key)).toBe(2);
      const range = await s.store.getRange(key, 1000, 101_000);
      expect(Buffer.from(range ?? []).equals(bytes.subarray(1000, 101_000))).toBe(true);
    } finally {
      await s.close();
    }
  });
});

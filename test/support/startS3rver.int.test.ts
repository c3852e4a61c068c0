import { request } from 'node:http';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { startS3rver } from '../../devkit/startS3rver.ts';
import { serverPer } from './serverPer.ts';

/** Sends a PUT whose body stops after `sent` of `declared` bytes, then drops the connection. */
async function tornPut(endpoint: string, path: string, declared: number, sent: number): Promise<void> {
  const { hostname, port } = new URL(endpoint);
  await new Promise<void>((resolve) => {
    const req = request({ hostname, port, path, method: 'PUT', headers: { 'content-length': declared } });
    req.on('error', () => resolve()); // the socket is destroyed on purpose
    req.write(Buffer.alloc(sent, 0x61), () => setTimeout(() => req.destroy(), 50));
    req.on('close', () => resolve());
  });
  await new Promise((r) => setTimeout(r, 100)); // let the server see the reset
}

describe('startS3rver (S3-faithful PUTs)', () => {
  const s3 = serverPer(startS3rver);

  it('leaves nothing behind when the uploader dies mid-body, as S3 does', async () => {
    await tornPut(s3.endpoint, `/${s3.bucket}/torn.json`, 100, 10);
    await expect(
      s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'torn.json' })),
    ).rejects.toThrow();
  });

  it('keeps the previous object whole when an overwrite is torn', async () => {
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'kept.txt', Body: 'first version' }));
    await tornPut(s3.endpoint, `/${s3.bucket}/kept.txt`, 1000, 3);
    const got = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'kept.txt' }));
    expect(await got.Body?.transformToString()).toBe('first version');
  });

  it('serves the whole body to a read issued right after the PUT returns', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 0x62);
    for (let i = 0; i < 5; i++) {
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `big-${i}.bin`, Body: body }));
      const got = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `big-${i}.bin` }));
      expect((await got.Body?.transformToByteArray())?.byteLength).toBe(body.byteLength);
    }
  });
});

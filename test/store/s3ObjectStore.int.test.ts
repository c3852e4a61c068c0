import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { startS3rver } from '../../devkit/startS3rver.ts';
import type { ObjectInfo } from '../../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { serverPer } from '../support/serverPer.ts';

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<string[]> {
  const out: string[] = [];
  for await (const info of iterable) out.push(info.key);
  return out;
}

// The behaviour shared with files is in objectStoreContract.int.test.ts; these are the S3-only details.
describe('createS3ObjectStore', () => {
  const s3 = serverPer(startS3rver);

  const rawKeys = async (prefix: string): Promise<string[]> => {
    const out = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (out.Contents ?? []).map((o) => o.Key ?? '');
  };

  it.each([
    ['data/archive', 'data/archive/', 's3://test-archive/data/archive'],
    ['/slashed/', 'slashed/', 's3://test-archive/slashed'],
  ])('stores keys under the prefix %j', async (prefix, stored, url) => {
    const store = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix });
    await store.put('history/dt=2024-01-01/a.parquet', 'a');
    expect(await rawKeys(stored)).toEqual([`${stored}history/dt=2024-01-01/a.parquet`]);
    expect(store.url).toBe(url);
  });

  it('works at the bucket root without a prefix', async () => {
    const store = createS3ObjectStore({ client: s3.client, bucket: s3.bucket });
    await store.put('rootkey.txt', 'r');
    expect(await rawKeys('rootkey')).toEqual(['rootkey.txt']);
    expect(await collect(store.list('rootkey'))).toEqual(['rootkey.txt']);
  });

  it('does not list objects of a sibling prefix that merely starts the same', async () => {
    const store = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'iso/arch' });
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'iso/archive-other/x', Body: 'x' }));
    await store.put('mine.txt', 'm');
    expect(await collect(store.list(''))).toEqual(['mine.txt']);
  });

  it('sends plain bodies, not aws-chunked framing', async () => {
    const store = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'raw' });
    await store.put('body.bin', new Uint8Array([1, 2, 3]));
    const out = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'raw/body.bin' }));
    expect(await out.Body?.transformToByteArray()).toEqual(new Uint8Array([1, 2, 3]));
  });
});

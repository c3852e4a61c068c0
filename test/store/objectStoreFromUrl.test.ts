import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { itClosesItsOwnClient } from '../url/storeUrlCases.ts';

describe('objectStoreFromUrl', () => {
  const s3Client = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  afterAll(() => s3Client.destroy());

  const fileUrl = (dir: string) => pathToFileURL(path.resolve(dir)).href;

  it.each([
    ['file://./archive', fileUrl('./archive')],
    ['file://archive/sub', fileUrl('archive/sub')],
    ['file:///var/data/archive', fileUrl('/var/data/archive')],
    ['./archive', fileUrl('./archive')],
    ['/abs/archive', fileUrl('/abs/archive')],
    ['file://./my%20dir', fileUrl('./my dir')],
    ['file:///var/my%20dir', fileUrl('/var/my dir')],
  ])('builds a file store for %j', (url, expected) => {
    expect(objectStoreFromUrl(url).url).toBe(expected);
  });

  it.each([
    ['s3://my-bucket/history/root', 's3://my-bucket/history/root'],
    ['s3://my-bucket/prefix/', 's3://my-bucket/prefix'],
    ['s3://my-bucket', 's3://my-bucket/'],
  ])('builds an S3 store for %j', (url, expected) => {
    expect(objectStoreFromUrl(url, { s3Client }).url).toBe(expected);
  });

  itClosesItsOwnClient('S3 client', () => objectStoreFromUrl('s3://my-bucket/p'));

  it.each([
    '',
    '   ',
    'http://example.com/x',
    's3://',
    's3://Bad_Bucket/x',
    's3://bucket/a/../x',
    'file://',
    'ftp://host/dir',
  ])('rejects %j with an actionable CONFIG_INVALID', (url) => {
    expect(() => objectStoreFromUrl(url, { s3Client })).toThrowError(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(
          `ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got '${url}'`,
        ),
      }),
    );
  });
});

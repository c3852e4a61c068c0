import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDestUrl, parseStateUrl } from '../../lib/foundation/url/storeUrl.ts';
import { BAD_STATE_URLS } from './storeUrlCases.ts';

const CWD = '/work/here';

describe('parseDestUrl', () => {
  it.each([
    ['file://./archive', '/work/here/archive'],
    ['file://archive/sub', '/work/here/archive/sub'],
    ['file://./my%20dir', '/work/here/my dir'],
    ['file:///var/my%20dir/a', '/var/my dir/a'],
    ['./archive', '/work/here/archive'],
    ['my%20dir', '/work/here/my%20dir'],
    ['/abs/archive', '/abs/archive'],
  ])('%j is the folder %j (a file:// URL is decoded once, a bare path never)', (url, dir) => {
    expect(parseDestUrl(url, CWD)).toEqual({ kind: 'file', dir: path.resolve(dir) });
  });

  it.each([
    ['s3://my-bucket/history/root', 'my-bucket', 'history/root'],
    ['s3://my-bucket/prefix/', 'my-bucket', 'prefix'],
    ['s3://my-bucket', 'my-bucket', ''],
  ])('%j is bucket %j, prefix %j', (url, bucket, prefix) => {
    expect(parseDestUrl(url)).toEqual({ kind: 's3', bucket, prefix });
  });

  it.each([
    '',
    ' ',
    'http://x/y',
    's3://',
    's3://Bad_Bucket/x',
    's3://bucket/a/../x',
    'file://',
    'file://%zz',
  ])('rejects %j naming ARCHIVE_DEST and the value', (url) => {
    expect(() => parseDestUrl(url, CWD)).toThrowError(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(
          `ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got '${url}'`,
        ),
      }),
    );
  });
});

describe('parseStateUrl', () => {
  it.each([
    ['dynamodb://archive-state', 'archive-state'],
    ['dynamodb://my_table.v2/', 'my_table.v2'],
  ])('%j is table %j', (url, table) => {
    expect(parseStateUrl(url)).toEqual({ kind: 'dynamodb', table });
  });

  it.each(BAD_STATE_URLS)('rejects %j naming ARCHIVE_STATE and the value', (url) => {
    expect(() => parseStateUrl(url)).toThrowError(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: `ARCHIVE_STATE must be dynamodb://TABLE (3-255 of a-z A-Z 0-9 _ . -), got '${url}'`,
      }),
    );
  });
});

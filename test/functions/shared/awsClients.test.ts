import { describe, expect, it } from 'vitest';
import { s3ClientConfig, tableFromStateUrl } from '../../../functions/shared/awsClients.ts';

describe('s3ClientConfig', () => {
  it('adds nothing on AWS', () => {
    expect(s3ClientConfig({})).toEqual({});
    expect(s3ClientConfig({ AWS_ENDPOINT_URL_S3: '' })).toEqual({});
  });

  it('uses path-style and no optional checksums against an S3-compatible endpoint', () => {
    expect(s3ClientConfig({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4569' })).toEqual({
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  });
});

describe('tableFromStateUrl', () => {
  it.each([
    ['dynamodb://tunnel-state', 'tunnel-state'],
    ['file://./state', undefined],
    [undefined, undefined],
  ])('reads %s as table %s', (url, table) => {
    expect(tableFromStateUrl(url)).toBe(table);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  CALL_LOG_ENV,
  s3ClientConfig,
  tableFromStateUrl,
  withCallLog,
} from '../../../functions/shared/awsClients.ts';
import { tempDirPer } from '../../support/tempDirPer.ts';

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

describe('withCallLog', () => {
  const tmp = tempDirPer('ta-call-log-', 'test');
  /** A client that never reaches the network: its build step stops every call. */
  const offline = () => {
    const client = new S3Client({
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    client.middlewareStack.add(
      () => async () => {
        throw new Error('offline');
      },
      { step: 'build', name: 'offline' },
    );
    return client;
  };
  const get = new GetObjectCommand({ Bucket: 'archive', Key: 'history/a.parquet' });

  it('appends each call to the file the environment names, by client, command and names', async () => {
    const file = join(tmp.dir, 'calls.jsonl');
    const client = withCallLog(offline(), { [CALL_LOG_ENV]: file });
    await expect(client.send(get)).rejects.toThrow('offline');
    await expect(client.send(get)).rejects.toThrow('offline');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        client: 'S3Client',
        command: 'GetObjectCommand',
        input: { Bucket: 'archive', Key: 'history/a.parquet' },
      },
      {
        client: 'S3Client',
        command: 'GetObjectCommand',
        input: { Bucket: 'archive', Key: 'history/a.parquet' },
      },
    ]);
  });

  it('names the role whose assumed credentials sign the calls', async () => {
    const file = join(tmp.dir, 'calls.jsonl');
    const role = 'arn:aws:iam::123456789012:role/provider';
    const client = withCallLog(offline(), { [CALL_LOG_ENV]: file }, role);
    await expect(client.send(get)).rejects.toThrow('offline');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ command: 'GetObjectCommand', as: role });
  });

  it('adds nothing to a client when the environment names no file', () => {
    const logs = (env: Record<string, string>) =>
      withCallLog(offline(), env)
        .middlewareStack.identify()
        .some((m) => m.startsWith('callLog'));
    expect(logs({})).toBe(false);
    expect(logs({ [CALL_LOG_ENV]: '' })).toBe(false);
    expect(logs({ [CALL_LOG_ENV]: join(tmp.dir, 'calls.jsonl') })).toBe(true);
  });
});

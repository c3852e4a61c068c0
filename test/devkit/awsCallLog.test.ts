import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { AWS_CALL_LOG_ENV, awsCallLogPlugin, installAwsCallLog } from '../../devkit/awsCallLog.ts';
import { withHostPlugins } from '../../functions/shared/awsClients.ts';
import { HOST_CLIENT_PLUGINS } from '../../functions/shared/hostClientPlugins.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

/** A client that never reaches the network: its build step stops every call. */
const offline = (): S3Client => {
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
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const get = new GetObjectCommand({ Bucket: 'archive', Key: 'history/a.parquet' });

describe('awsCallLogPlugin', () => {
  const tmp = tempDirPer('ta-call-log-', 'test');

  it('appends each call to the file, by client, command and names', async () => {
    const file = join(tmp.dir, 'calls.jsonl');
    const client = offline();
    client.middlewareStack.use(awsCallLogPlugin(file));
    await expect(client.send(get)).rejects.toThrow('offline');
    await expect(client.send(get)).rejects.toThrow('offline');
    const call = {
      client: 'S3Client',
      command: 'GetObjectCommand',
      input: { Bucket: 'archive', Key: 'history/a.parquet' },
    };
    expect(lines(file)).toEqual([call, call]);
  });
});

describe('installAwsCallLog', () => {
  const tmp = tempDirPer('ta-call-log-', 'test');
  afterEach(() => {
    delete (globalThis as { [HOST_CLIENT_PLUGINS]?: unknown })[HOST_CLIENT_PLUGINS];
  });

  it('records the calls of every client the functions build, and none before it is installed', async () => {
    const file = join(tmp.dir, 'calls.jsonl');
    const before = withHostPlugins(offline());
    installAwsCallLog(file);
    const after = withHostPlugins(offline());
    await expect(before.send(get)).rejects.toThrow('offline');
    await expect(after.send(get)).rejects.toThrow('offline');
    expect(lines(file)).toMatchObject([{ client: 'S3Client', command: 'GetObjectCommand' }]);
    expect(AWS_CALL_LOG_ENV).toBe('DEVKIT_AWS_CALL_LOG');
  });
});

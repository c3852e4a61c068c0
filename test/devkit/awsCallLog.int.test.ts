import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsCallLogPlugin } from '../../devkit/awsCallLog.ts';
import { assumedLakeStore } from '../../functions/security-lake-export/assumedLakeStore.ts';
import { HOST_CLIENT_PLUGINS, type HostClientPlugin } from '../../functions/shared/hostClientPlugins.ts';
import type { LakeSource } from '../../lib/analytics/ocsf/securityLakeLayout.ts';
import { type StsStubHandle, startStsStub } from '../ocsf/startStsStub.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

/** A plugin stopping every S3 call at its build step (after the call log's): no S3 is needed. */
const s3Offline: HostClientPlugin = {
  applyToStack(stack) {
    stack.add(
      (next, context) => async (args) => {
        if (context.clientName === 'S3Client') throw new Error('offline');
        return next(args);
      },
      { step: 'build', name: 'offline' },
    );
  },
};

describe('awsCallLogPlugin with assumed credentials', () => {
  const tmp = tempDirPer('ta-call-log-', 'test');
  let sts: StsStubHandle;
  beforeAll(async () => {
    sts = await startStsStub();
  });
  afterAll(async () => {
    delete (globalThis as { [HOST_CLIENT_PLUGINS]?: unknown })[HOST_CLIENT_PLUGINS];
    await sts?.close();
  });

  it('names the role whose assumed credentials signed a call, and records the AssumeRole as the caller’s', async () => {
    const file = join(tmp.dir, 'calls.jsonl');
    (globalThis as { [HOST_CLIENT_PLUGINS]?: HostClientPlugin[] })[HOST_CLIENT_PLUGINS] = [
      awsCallLogPlugin(file),
      s3Offline,
    ];
    const roleArn = 'arn:aws:iam::123456789012:role/provider';
    const source = {
      roleArn,
      externalId: 'ext-1',
      cls: 'tunnel',
      location: { bucket: 'lake-bucket' },
    } as unknown as LakeSource;
    const store = assumedLakeStore(source, {
      region: 'eu-west-1',
      stsEndpoint: sts.endpoint,
      callerCredentials: { accessKeyId: 'AKIAFUNCTIONROLE', secretAccessKey: 'x' },
    });
    await expect(store.get('ext/a.parquet')).rejects.toThrow('offline');
    await store.close?.();
    const calls = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls).toEqual([
      expect.objectContaining({
        command: 'AssumeRoleCommand',
        input: expect.objectContaining({ RoleArn: roleArn }),
      }),
      expect.objectContaining({ client: 'S3Client', command: 'GetObjectCommand', as: roleArn }),
    ]);
    expect(calls[0]).not.toHaveProperty('as');
  });
});

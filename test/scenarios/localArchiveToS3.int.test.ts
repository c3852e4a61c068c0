import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startLocalDynamo } from '../../devkit/localDynamo.ts';
import { runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { SMALL_DATASET } from '../support/engineKit.ts';

const DAY_MS = 86_400_000;
const START = Date.parse('2026-10-01T06:00:00.000Z');

let dir: string;
let emulator: EmulatorHandle;
let clock: ManualClock;
let s3: S3rverHandle;
let dynamo: LocalDynamo;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-local-to-s3-'));
  await mkdir(join(dir, 'tmp'));
  clock = new ManualClock(new Date(START));
  emulator = await startEmulator({ seed: 5, clock, maxPageSize: 100, dataset: SMALL_DATASET });
  s3 = await startS3rver();
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
  await s3.close();
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** What `aws s3 sync DIR s3://bucket/prefix/ --exclude ...` does: every file, byte for byte, under its path. */
async function sync(from: string, prefix: string, exclude: RegExp): Promise<number> {
  let copied = 0;
  for (const entry of await readdir(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const key = relative(from, join(entry.parentPath, entry.name));
    if (exclude.test(key)) continue;
    const body = await readFile(join(from, key));
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${key}`, Body: body }));
    copied++;
  }
  return copied;
}

describe('a local archive moved to S3 and DynamoDB, as docs/operations.md says', () => {
  it('verifies where it is copied, and the next run (new table, local keys) extends the same chain', async () => {
    const local = join(dir, 'archive');
    // The keys the local runs used, named as the moved runs name them (`--keys-dir`).
    const keys = join(dir, 'keys');
    const env = {
      TUNNEL_API_KEY: EMULATOR_PAID_KEY,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'error',
      TMPDIR: join(dir, 'tmp'),
    };
    const at = () => ['--now', clock.now().toISOString(), '--base-url', emulator.url];
    const first = await runCli(
      ['run', ...at(), '--dest', `file://${local}`, '--keys-dir', keys, '--json'],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    const before = JSON.parse(first.stdout) as { digest: { seq: number } };

    // The docs' exclusions: the state, the keys, anything staged, the local report.
    const copied = await sync(local, 'tunnels/', /^(\.state|\.keys|_staging)\/|^report\.html$/);
    expect(copied).toBeGreaterThan(10);
    const dest = `s3://${s3.bucket}/tunnels/`;
    const verify = await runCli(['verify', '--now', clock.now().toISOString(), '--dest', dest], {
      ...env,
      TUNNEL_API_KEY: '',
    });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);

    clock.set(new Date(START + DAY_MS));
    const moved = await runCli(
      ['run', ...at(), '--dest', dest, '--state', 'dynamodb://moved-state', '--keys-dir', keys, '--json'],
      env,
    );
    expect(moved.code, moved.stderr).toBe(0);
    const after = JSON.parse(moved.stdout) as {
      digest: { seq: number };
      recordsNew: number;
      foreignFiles?: string[];
    };
    expect(after.digest.seq).toBe(before.digest.seq + 1);
    expect(after.foreignFiles ?? []).toEqual([]);

    const again = await runCli(['verify', '--now', clock.now().toISOString(), '--dest', dest, '--json'], {
      ...env,
      TUNNEL_API_KEY: '',
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { failures: unknown[] }).failures).toEqual([]);
  }, 300_000);
});

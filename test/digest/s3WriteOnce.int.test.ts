import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { parquetOf } from './digestFixtures.ts';

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
}

let s3: S3rverHandle;
let keysDir: string;
const sent: Sent[] = [];

beforeAll(async () => {
  s3 = await startS3rver();
  keysDir = await mkdtemp(join(tmpdir(), 'ta-s3-keys-'));
  // Records every HTTP request as it leaves the SDK: what S3 (and the bucket policy) would see.
  s3.client.middlewareStack.add(
    (next) => async (args) => {
      const req = args.request as { method: string; path: string; headers: Record<string, string> };
      sent.push({ method: req.method, path: decodeURIComponent(req.path), headers: { ...req.headers } });
      return next(args);
    },
    { step: 'finalizeRequest', name: 'recordRequests' },
  );
});
afterAll(async () => {
  await s3?.close();
  await rm(keysDir, { recursive: true, force: true });
});

describe('write-once on S3', () => {
  it('publishes data and writes digests with If-None-Match: * and verifies the result over s3://', async () => {
    const objects = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'archive' });
    const { signer } = await loadLocalKeys(keysDir);
    const clock = new ManualClock('2026-11-22T10:00:00.000Z');
    await objects.putFile('_staging/r1/dt=2026-11-20/a.parquet', await writeTemp(await parquetOf([1, 2])));
    sent.length = 0;
    await objects.publish('_staging/r1/dt=2026-11-20/a.parquet', 'history/dt=2026-11-20/a.parquet');
    await appendDigest({ objects, signer, clock, logger: silentLogger }, { runId: 'r1', scans: [] });

    const writes = sent.filter((r) => r.method === 'PUT');
    const copy = writes.find((r) => r.path.endsWith('/history/dt=2026-11-20/a.parquet'));
    expect(copy?.headers['if-none-match']).toBe('*');
    expect(copy?.headers['x-amz-copy-source']).toContain('_staging/r1');
    for (const key of [digestKeys.publicKeyPem, digestKeys.publicKeyInfo, digestKeys.digest(1)]) {
      const put = writes.find((r) => r.path.endsWith(`/archive/${key}`));
      expect(put?.headers['if-none-match'], key).toBe('*');
    }

    const result = await verifyArchive({ objects, clock }, { windowDays: 60 });
    expect(result.failures).toEqual([]);
    expect(result).toMatchObject({ ok: true, digests: 1, files: 1, rows: 2 });
  });

  it('putIfAbsent leaves an existing object alone and says so', async () => {
    const objects = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'p2' });
    expect(await objects.putIfAbsent('digests/x.json', 'first')).toBe(true);
    expect(await objects.putIfAbsent('digests/x.json', 'second')).toBe(false);
    expect(new TextDecoder().decode(await objects.get('digests/x.json'))).toBe('first');
  });
});

async function writeTemp(bytes: Uint8Array): Promise<string> {
  const { writeFile } = await import('node:fs/promises');
  const file = join(keysDir, `f-${sent.length}.parquet`);
  await writeFile(file, bytes);
  return file;
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { startKmsStub } from '../../devkit/infra/startKmsStub.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { kmsDigestSigner } from '../../lib/archive/digest/kmsDigestSigner.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { serverPer } from '../support/serverPer.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { parquetOf } from './digestFixtures.ts';

const kms = serverPer(startKmsStub);
const tmp = tempDirPer('ta-kms-chain-');

describe('a digest chain signed by KMS (ECDSA P-256, MessageType DIGEST)', () => {
  it('verifies with the published public key alone, and a tampered digest is named', async () => {
    const client = new KMSClient({
      endpoint: kms.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const signer = kmsDigestSigner({ client, keyId: 'arn:aws:kms:us-east-1:000000000000:key/k' });
    const objects = createFileObjectStore(join(tmp.dir, 'archive'));
    const clock = new ManualClock('2026-11-22T10:00:00.000Z');
    const deps = { objects, signer, clock, logger: silentLogger };
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1, 2, 3]));
    await appendDigest(deps, { runId: 'r1', scans: [] });
    await objects.put('history/dt=2026-11-21/b.parquet', await parquetOf([4], '2026-11-21T01:00:00.000Z'));
    await appendDigest(deps, { runId: 'r2', scans: [] });
    client.destroy();
    expect(kms.requests.filter((r) => r === 'Sign')).toHaveLength(2);

    const intact = await verifyArchive({ objects, clock }, { windowDays: 60 });
    expect(intact.failures).toEqual([]);
    expect(intact).toMatchObject({ ok: true, digests: 2, files: 2, rows: 4 });

    const file = join(tmp.dir, 'archive', digestKeys.digest(2));
    const d = JSON.parse(await readFile(file, 'utf8'));
    d.scans = [{ day: '2026-11-21', scannedAt: '2026-11-22T09:00:00.000Z', complete: true }];
    await writeFile(file, JSON.stringify(d));
    const tampered = await verifyArchive({ objects, clock }, { windowDays: 60 });
    expect(tampered.failures).toEqual([
      expect.objectContaining({ kind: 'signature', object: digestKeys.digest(2) }),
    ]);
  });
});

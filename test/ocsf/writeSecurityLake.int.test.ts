import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import AWSAccount from 's3rver/lib/models/account.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assumedLakeStore } from '../../functions/security-lake-export/assumedLakeStore.ts';
import { ManualClock } from '../../lib/clock/clock.ts';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { silentLogger } from '../../lib/log/logger.ts';
import { openOcsfArchive } from '../../lib/ocsf/ocsfArchive.ts';
import { OCSF_1_1 } from '../../lib/ocsf/ocsfProfile.ts';
import { openStoreArchive } from '../../lib/ocsf/openStoreArchive.ts';
import type { LakeSource } from '../../lib/ocsf/securityLakeLayout.ts';
import { stripNulls } from '../../lib/ocsf/stripNulls.ts';
import { type SecurityLakeOptions, writeSecurityLake } from '../../lib/ocsf/writeSecurityLake.ts';
import { dynamoVersionedItems } from '../../lib/state/dynamoVersionedItems.ts';
import type { VersionedItems } from '../../lib/state/versionedItems.ts';
import { createFileObjectStore } from '../../lib/store/fileObjectStore.ts';
import { type DynaliteHandle, startDynalite } from '../support/startDynalite.ts';
import { type S3rverHandle, startS3rver } from '../support/startS3rver.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { startWriteOnceFront, type WriteOnceFront } from '../support/writeOnceS3Front.ts';
import { emulatorArchive } from './emulatorArchive.ts';
import { ocsfErrors } from './ocsfSchemas.ts';
import { type RecordingProxy, startRecordingProxy } from './recordingProxy.ts';
import { type StsStubHandle, startStsStub } from './startStsStub.ts';

const tmp = tempDirPer('ta-security-lake-');
let archive: string;
let s3: S3rverHandle;
let sts: StsStubHandle;
let proxy: RecordingProxy;
let front: WriteOnceFront;
let dynamo: DynaliteHandle;
beforeAll(async () => {
  [archive, s3, sts, dynamo] = await Promise.all([
    emulatorArchive(tmp.dir),
    startS3rver('aws-security-data-lake-eu-west-1-test'),
    startStsStub(),
    startDynalite(),
  ]);
  // s3rver ignores If-None-Match: the front enforces it as S3 does.
  front = await startWriteOnceFront(s3);
  proxy = await startRecordingProxy(front.endpoint);
  // The lake bucket knows the provider role's session keys only: a write signed otherwise is refused.
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(sts.accessKeyId, sts.secretAccessKey);
}, 120_000);
afterAll(async () => {
  AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(sts.accessKeyId);
  await Promise.all([proxy?.close(), front?.close(), sts?.close(), dynamo?.close()]);
  await s3?.close();
});

const SOURCES: LakeSource[] = (['sessions', 'findings'] as const).map((cls) => ({
  cls,
  location: { bucket: 'aws-security-data-lake-eu-west-1-test', prefix: `ext/tunnel-archiver-${cls}/` },
  roleArn: `arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-tunnel-archiver-${cls}-eu-west-1`,
  externalId: `external-${cls}`,
}));
const OPTIONS: SecurityLakeOptions = {
  sources: SOURCES,
  region: 'eu-west-1',
  accountId: '123456789012',
  settleHours: 6,
  maxHours: 100,
  lookbackDays: 7,
  firstHour: new Date('2026-11-19T00:00:00Z'),
};
/** Six hours after the archive was made: hours up to 2026-11-20T23:00 have settled. */
const NOW = new Date('2026-11-21T06:00:00Z');

function deps(items: VersionedItems) {
  return {
    openArchive: openStoreArchive(createFileObjectStore(archive), tmp.dir),
    lakeStore: async (source: LakeSource) =>
      assumedLakeStore(source, {
        region: 'eu-west-1',
        stsEndpoint: sts.endpoint,
        callerCredentials: { accessKeyId: 'AKIAFUNCTIONROLE', secretAccessKey: 'x' },
        s3: {
          endpoint: proxy.endpoint,
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        },
      }),
    items,
    rules: [] as never[],
    clock: new ManualClock(NOW),
    logger: silentLogger,
    tmpDir: tmp.dir,
  };
}

const listLake = async () => {
  const r = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (r.Contents ?? []).map((o) => ({ key: o.Key ?? '', etag: o.ETag ?? '' }));
};

async function eventsOf(key: string): Promise<Record<string, unknown>[]> {
  const body = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  const path = join(tmp.dir, key.replaceAll('/', '_'));
  await writeFile(
    path,
    await (body.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const rows = await c.runAndReadAll(
      `SELECT CAST(to_json(e) AS VARCHAR) AS j FROM read_parquet('${path}') e`,
    );
    return rows
      .getRowObjectsJson()
      .map((r) => stripNulls(JSON.parse(String(r.j))) as Record<string, unknown>);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

describe('writeSecurityLake', () => {
  it('writes each hour once, sorted, in the lake layout, under a crash, a retry and two concurrent runs', async () => {
    const rules = await loadRules();
    const items = dynamoVersionedItems({ client: dynamo.client, table: dynamo.table });
    // A first run dies after its first file, before it moves the cursor (the write was applied, the reply lost).
    let wrote = false;
    const crashing: VersionedItems = {
      ...items,
      put: async (...args) => {
        if (wrote) throw new Error('crash after the first file');
        return items.put(...args);
      },
    };
    const first = deps(crashing);
    const crashingDeps = {
      ...first,
      rules,
      lakeStore: async (source: LakeSource) => {
        const store = await first.lakeStore(source);
        return {
          ...store,
          putIfAbsent: async (key: string, body: Uint8Array | string) => {
            const created = await store.putIfAbsent(key, body);
            wrote = true;
            return created;
          },
        };
      },
    };
    await expect(writeSecurityLake(crashingDeps, OPTIONS)).rejects.toThrow(/crash/);
    const afterCrash = await listLake();
    expect(afterCrash.length).toBe(1);
    // Then two runs at once (a retry beside the next schedule), then one more.
    const [a, b] = await Promise.all([
      writeSecurityLake({ ...deps(items), rules }, OPTIONS),
      writeSecurityLake({ ...deps(items), rules }, OPTIONS),
    ]);
    const again = await writeSecurityLake({ ...deps(items), rules }, OPTIONS);
    expect(again.every((r) => r.hours === 0 && r.files === 0)).toBe(true);

    const lake = await listLake();
    // The crashed run's file is still the one there (never written twice).
    expect(lake).toContainEqual(afterCrash[0]);
    const written = [...(a ?? []), ...(b ?? [])];
    expect(written.reduce((n, r) => n + r.files, 0) + 1).toBe(lake.length);

    const layout =
      /^ext\/tunnel-archiver-(sessions|findings)\/region=eu-west-1\/accountId=123456789012\/eventDay=(\d{8})\/(sessions|findings)-(\d{10})\.parquet$/;
    const db = await openOcsfArchive(archive, { untilDay: '2026-11-21' });
    try {
      for (const cls of ['sessions', 'findings'] as const) {
        const keys = lake.map((o) => o.key).filter((k) => k.includes(`-${cls}/`));
        expect(keys.length).toBeGreaterThan(cls === 'sessions' ? 5 : 0);
        const all: Record<string, unknown>[] = [];
        for (const key of keys) {
          const m = layout.exec(key);
          expect(m, key).not.toBeNull();
          expect(m?.[1]).toBe(cls);
          expect(m?.[4]?.slice(0, 8)).toBe(m?.[2]);
          const hourMs = Date.parse(
            `${m?.[4]?.replace(/^(\d{4})(\d{2})(\d{2})(\d{2})$/, '$1-$2-$3T$4:00:00Z')}`,
          );
          const events = await eventsOf(key);
          const times = events.map((e) => e.time as number);
          expect(times).toEqual([...times].sort((x, y) => x - y));
          for (const t of times) expect(t >= hourMs && t < hourMs + 3_600_000, key).toBe(true);
          const schema = cls === 'sessions' ? '1.1.0-network_activity' : '1.1.0-detection_finding';
          expect(events.map((e) => ocsfErrors(schema, e)).filter((e) => e !== '')).toEqual([]);
          all.push(...events);
        }
        // Every event of the settled hours, each once.
        const expected = await db.events(cls, OCSF_1_1, rules, {
          fromMs: OPTIONS.firstHour?.getTime() ?? 0,
          toMs: Date.parse('2026-11-21T00:00:00Z'),
        });
        expect(all.length).toBe(expected.length);
        expect(new Set(all.map((e) => (e.metadata as { uid: string }).uid)).size).toBe(all.length);
      }
    } finally {
      db.close();
    }
  }, 240_000);

  it("assumes each source's provider role with its external id, and signs the lake's writes with it", () => {
    for (const s of SOURCES)
      expect(sts.assumed).toContainEqual({
        RoleArn: s.roleArn,
        ExternalId: s.externalId,
        RoleSessionName: `tunnel-archiver-${s.cls}`,
      });
    const puts = proxy.seen.filter((r) => r.method === 'PUT');
    expect(puts.length).toBeGreaterThan(0);
    for (const p of puts) expect(p.authorization).toContain(`Credential=${sts.accessKeyId}/`);
  });
});

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import AWSAccount from 's3rver/lib/models/account.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { assumedLakeStore } from '../../functions/security-lake-export/assumedLakeStore.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { openOcsfArchive } from '../../lib/analytics/ocsf/ocsfArchive.ts';
import { OCSF_1_1 } from '../../lib/analytics/ocsf/ocsfProfile.ts';
import type { LakeSource } from '../../lib/analytics/ocsf/securityLakeLayout.ts';
import { stripNulls } from '../../lib/analytics/ocsf/stripNulls.ts';
import {
  type SecurityLakeDeps,
  type SecurityLakeOptions,
  writeSecurityLake,
} from '../../lib/analytics/ocsf/writeSecurityLake.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import type { VersionedItems } from '../../lib/archive/state/versionedItems.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { TEST_SIGNER } from '../support/engineKit.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { startWriteOnceFront, type WriteOnceFront } from '../support/writeOnceS3Front.ts';
import { emulatorArchive } from './emulatorArchive.ts';
import { ocsfErrors } from './ocsfSchemas.ts';
import { readLakeObject } from './readLakeObject.ts';
import { type RecordingProxy, startRecordingProxy } from './recordingProxy.ts';
import { type StsStubHandle, startStsStub } from './startStsStub.ts';

const tmp = tempDirPer('ta-security-lake-');
let emulator: string;
/** The archive the lake reads: the emulator's files, placed in it (and digested) as the test goes. */
let archive: string;
let s3: S3rverHandle;
let sts: StsStubHandle;
let proxy: RecordingProxy;
let front: WriteOnceFront;
let dynamo: DynaliteHandle;
beforeAll(async () => {
  [emulator, s3, sts, dynamo] = await Promise.all([
    emulatorArchive(tmp.dir),
    startS3rver('aws-security-data-lake-eu-west-1-test'),
    startStsStub(),
    startDynalite(),
  ]);
  archive = join(tmp.dir, 'lake-archive');
  // s3rver ignores If-None-Match: the front enforces it as S3 does.
  front = await startWriteOnceFront(s3);
  proxy = await startRecordingProxy(front.endpoint);
  // The lake bucket knows the provider role's session keys only: a write signed otherwise is refused.
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(sts.accessKeyId, sts.secretAccessKey);
});
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
};

/** The archive store, recording what a run asks of it: the prefixes it lists and the keys it reads. */
function recordedArchive(seen: { lists: string[]; gets: string[] }): ObjectStore {
  const store = createFileObjectStore(archive);
  return {
    ...store,
    list: (prefix: string) => {
      seen.lists.push(prefix);
      return store.list(prefix);
    },
    get: (key: string) => {
      seen.gets.push(key);
      return store.get(key);
    },
  };
}

function deps(
  items: VersionedItems,
  now: string,
  seen: { lists: string[]; gets: string[] } = { lists: [], gets: [] },
): SecurityLakeDeps {
  return {
    archive: recordedArchive(seen),
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
    rules: [],
    clock: new ManualClock(now),
    logger: silentLogger,
    tmpDir: tmp.dir,
  };
}

/** Runs DuckDB statements on the emulator's files (`$E` = its folder, `$A` = the lake's archive). */
async function duck(...statements: string[]): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    for (const s of statements) await c.run(s.replaceAll('$E', emulator).replaceAll('$A', archive));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Appends a digest as the archiver does, at `at`: it lists every file placed since the last one. */
const digestAt = (at: string) =>
  appendDigest(
    {
      objects: createFileObjectStore(archive),
      signer: TEST_SIGNER,
      clock: new ManualClock(at),
      logger: silentLogger,
    },
    { runId: `run-${at}`, scans: [] },
  );

const HISTORY = 'history/dt=2026-11-19';
const FINDINGS = 'findings/dt=2026-11-20';
/** The session archived open on time and closed by a revision archived three days later. */
let amended = '';

/**
 * On time (archived 2026-11-20 12:xx): half of the emulator's sessions of 2026-11-19 (one of them still
 * open) and half of its findings. Three days late (2026-11-23 09:xx): the other sessions of that day, the
 * revision that closes the open one, the other findings.
 */
async function archiveOnTime(): Promise<void> {
  await mkdir(join(archive, HISTORY), { recursive: true });
  await mkdir(join(archive, FINDINGS), { recursive: true });
  await duck(
    `CREATE TABLE h AS SELECT * FROM read_parquet('$E/${HISTORY}/*.parquet')`,
    `CREATE TABLE f AS SELECT * FROM read_parquet('$E/${FINDINGS}/*.parquet')`,
    `CREATE TABLE s AS SELECT min(session_id) AS id FROM h WHERE hash(session_id) % 2 = 0`,
    `COPY (SELECT * REPLACE (CASE WHEN session_id = (SELECT id FROM s) THEN NULL ELSE end_time END AS end_time,
       CASE WHEN session_id = (SELECT id FROM s) THEN archived_at - INTERVAL 1 HOUR ELSE archived_at END AS archived_at)
       FROM h WHERE hash(session_id) % 2 = 0) TO '$A/${HISTORY}/20261120T120500Z-ontime-0001.parquet' (FORMAT parquet)`,
    `COPY (SELECT * FROM f WHERE hash(finding_id) % 2 = 0) TO '$A/${FINDINGS}/20261120T120600Z-ontime-0001.parquet' (FORMAT parquet)`,
    `COPY (SELECT id FROM s) TO '$A/../amended.csv' (HEADER false)`,
  );
  const { readFile } = await import('node:fs/promises');
  amended = (await readFile(join(archive, '..', 'amended.csv'), 'utf8')).trim();
  await digestAt('2026-11-20T12:10:00Z');
  // The next archiver run, the next hour: the archive hour 12:00 is complete.
  await digestAt('2026-11-20T13:05:00Z');
}

async function archiveLate(): Promise<void> {
  await duck(
    `CREATE TABLE h AS SELECT * FROM read_parquet('$E/${HISTORY}/*.parquet')`,
    `CREATE TABLE f AS SELECT * FROM read_parquet('$E/${FINDINGS}/*.parquet')`,
    `COPY (SELECT * FROM h WHERE hash(session_id) % 2 = 1 OR session_id = '${amended}')
       TO '$A/${HISTORY}/20261123T090500Z-late-0001.parquet' (FORMAT parquet)`,
    `COPY (SELECT * FROM f WHERE hash(finding_id) % 2 = 1) TO '$A/${FINDINGS}/20261123T090600Z-late-0001.parquet' (FORMAT parquet)`,
  );
  await digestAt('2026-11-23T09:10:00Z');
  await digestAt('2026-11-23T10:05:00Z');
}

const listLake = async () => {
  const r = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (r.Contents ?? []).map((o) => ({ key: o.Key ?? '', etag: o.ETag ?? '' }));
};

async function eventsOf(key: string): Promise<Record<string, unknown>[]> {
  const events = await readLakeObject(s3.client, s3.bucket, key, join(tmp.dir, 'lake-read', key));
  return events.map((e) => stripNulls(e) as Record<string, unknown>);
}

const LAYOUT =
  /^ext\/tunnel-archiver-(sessions|findings)\/region=eu-west-1\/accountId=123456789012\/eventDay=(\d{8})\/(sessions|findings)-(\d{10})-(\d{10})\.parquet$/;
const uidOf = (e: Record<string, unknown>) => (e.metadata as { uid: string }).uid;

/** Every lake file of a class: its name's parts and its events, each file checked for layout, sort and schema. */
async function lakeEvents(cls: 'sessions' | 'findings') {
  const files: { key: string; archivedHour: string; events: Record<string, unknown>[] }[] = [];
  for (const { key } of await listLake()) {
    const m = LAYOUT.exec(key);
    expect(m, key).not.toBeNull();
    if (m?.[1] !== cls) continue;
    expect(m[3]).toBe(cls);
    const events = await eventsOf(key);
    const times = events.map((e) => e.time as number);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    // Every event in the file's event day.
    for (const t of times) expect(new Date(t).toISOString().slice(0, 10).replaceAll('-', ''), key).toBe(m[2]);
    const schema = cls === 'sessions' ? '1.1.0-network_activity' : '1.1.0-detection_finding';
    expect(events.map((e) => ocsfErrors(schema, e)).filter((e) => e !== '')).toEqual([]);
    files.push({ key, archivedHour: m[4] ?? '', events });
  }
  return files;
}

/** The uids the mapping gives the archive as it stands (every file, late ones included). */
async function archiveUids(cls: 'sessions' | 'findings', rules: Awaited<ReturnType<typeof loadRules>>) {
  const db = await openOcsfArchive(archive, { untilDay: '2026-11-30' });
  try {
    return (await db.events(cls, OCSF_1_1, rules, { fromMs: 0, toMs: Date.parse('2027-01-01') }))
      .map((e) => uidOf(JSON.parse(e)))
      .sort();
  } finally {
    db.close();
  }
}

describe('writeSecurityLake', () => {
  it('writes each archive hour once, in the lake layout, sorted, under a crash, a retry and two concurrent runs', async () => {
    await archiveOnTime();
    const rules = await loadRules();
    const items = dynamoVersionedItems({ client: dynamo.client, table: dynamo.table });
    const NOW = '2026-11-20T20:00:00Z';
    // A first run dies after its first lake file, before anything moves (the write applied, the reply lost).
    let wrote = false;
    const crashing: VersionedItems = {
      ...items,
      put: async (...args) => {
        if (wrote) throw new Error('crash after the first file');
        return items.put(...args);
      },
    };
    const first = deps(crashing, NOW);
    await expect(
      writeSecurityLake(
        {
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
        },
        OPTIONS,
      ),
    ).rejects.toThrow(/crash/);
    const afterCrash = await listLake();
    expect(afterCrash.length).toBe(1);
    // Then two runs at once (a retry beside the next schedule), then one more.
    const [a, b] = await Promise.all([
      writeSecurityLake({ ...deps(items, NOW), rules }, OPTIONS),
      writeSecurityLake({ ...deps(items, NOW), rules }, OPTIONS),
    ]);
    const again = await writeSecurityLake({ ...deps(items, NOW), rules }, OPTIONS);
    expect(again.every((r) => r.hours === 0 && r.files === 0)).toBe(true);

    const lake = await listLake();
    // The crashed run's file is still the one there (never written twice).
    expect(lake).toContainEqual(afterCrash[0]);
    expect([...a, ...b].reduce((n, r) => n + r.files, 0) + 1).toBe(lake.length);
    for (const cls of ['sessions', 'findings'] as const) {
      const events = (await lakeEvents(cls)).flatMap((f) => f.events);
      expect(events.length).toBeGreaterThan(0);
      // Every event of what was archived, each once.
      expect(events.map(uidOf).sort()).toEqual(await archiveUids(cls, rules));
    }
    // The open session: its Open went out, its Close not yet.
    const uids = (await lakeEvents('sessions')).flatMap((f) => f.events.map(uidOf));
    expect(uids).toContain(`${amended}:open`);
    expect(uids).not.toContain(`${amended}:close`);
  }, 300_000);

  it('sends what is archived days late (sessions, the revision that closes one, findings) once, in its own day', async () => {
    const rules = await loadRules();
    const items = dynamoVersionedItems({ client: dynamo.client, table: dynamo.table });
    const before = new Set((await listLake()).map((o) => o.key));
    await archiveLate();
    const NOW = '2026-11-23T17:00:00Z';
    const seen = { lists: [] as string[], gets: [] as string[] };
    await Promise.all([
      writeSecurityLake({ ...deps(items, NOW, seen), rules }, OPTIONS),
      writeSecurityLake({ ...deps(items, NOW), rules }, OPTIONS),
    ]);
    // The work follows the cursor: digests from the cursor on (by key), the files they list and
    // those sent before of the same days, and for findings one history partition listing per day.
    // (The cursor stands at digest 2, the on-time run's last, whose hour ended only with the late ones.)
    expect(seen.gets.filter((k) => k.startsWith('digests/')).sort()[0]).toBe('digests/0000000002.json');
    expect(seen.lists.length).toBeGreaterThan(0);
    for (const prefix of seen.lists) expect(prefix).toMatch(/^history\/dt=\d{4}-\d{2}-\d{2}\/$/);
    const again = await writeSecurityLake({ ...deps(items, NOW), rules }, OPTIONS);
    expect(again.every((r) => r.files === 0)).toBe(true);

    for (const cls of ['sessions', 'findings'] as const) {
      const files = await lakeEvents(cls);
      const events = files.flatMap((f) => f.events);
      // The whole archive, late files included, each event once.
      expect(events.map(uidOf).sort()).toEqual(await archiveUids(cls, rules));
      const late = files.filter((f) => !before.has(f.key));
      expect(late.length).toBeGreaterThan(0);
      // Late events sit in their event days (2026-11-19 and after), named after the late archive hour.
      for (const f of late) expect(f.archivedHour).toBe('2026112309');
    }
    const sessions = await lakeEvents('sessions');
    const closeOf = sessions.filter((f) => f.events.some((e) => uidOf(e) === `${amended}:close`));
    expect(closeOf.map((f) => f.archivedHour)).toEqual(['2026112309']);
    expect(sessions.flatMap((f) => f.events).filter((e) => uidOf(e) === `${amended}:open`)).toHaveLength(1);
    // Every finding's related_events resolve to session events in the lake.
    const sessionUids = new Set(sessions.flatMap((f) => f.events.map(uidOf)));
    const related = (await lakeEvents('findings')).flatMap((f) =>
      f.events.flatMap((e) =>
        ((e.finding_info as { related_events?: { uid: string }[] }).related_events ?? []).map((r) => r.uid),
      ),
    );
    expect(related.length).toBeGreaterThan(0);
    expect(related.filter((uid) => !sessionUids.has(uid))).toEqual([]);
  }, 300_000);

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

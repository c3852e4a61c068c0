import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { sha256OfBytes } from '../../lib/archive/digest/describeDataFile.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { readDigestChain } from '../../lib/archive/digest/readDigestChain.ts';
import { loadLocalKeys, localKeysDir } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { checkChain } from '../../lib/integrity/verify/checkChain.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { parquetOf } from './digestFixtures.ts';

let dir: string;
let objects: ObjectStore;
let signer: DigestSigner;
const clock = new ManualClock('2026-11-22T10:15:00.000Z');
const deps = () => ({ objects, signer, clock, logger: silentLogger });
const scans = [{ day: '2026-11-20', scannedAt: '2026-11-22T10:14:00.000Z', complete: true }];
/** A file of the manifest of `history/dt=2026-11-20`, committed now. */
const manifestFile = (name: string, published: boolean) => ({
  name,
  stagingKey: `_staging/r/dt=2026-11-20/${name}`,
  rows: 1,
  bytes: 1,
  runId: 'r',
  fence: 1,
  committedAt: clock.now().toISOString(),
  published,
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-digest-'));
  objects = createFileObjectStore(join(dir, 'archive'));
  signer = (await loadLocalKeys(localKeysDir(join(dir, 'archive')))).signer;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('appendDigest', () => {
  it('lists each undigested data file with hash, size, rows, dt and time range, then links the next digest', async () => {
    const a = await parquetOf([1, 2, 3]);
    await objects.put('history/dt=2026-11-20/a.parquet', a);
    const first = await appendDigest(deps(), { runId: 'r1', scans });
    const chain = await readDigestChain(objects);
    // The head it reports is the digest as stored: its SHA-256 is the one the chain computes.
    expect(first).toEqual({
      key: digestKeys.digest(1),
      seq: 1,
      sha256: chain.entries[0]?.sha256,
      createdAt: chain.entries[0]?.digest?.createdAt,
      files: 1,
      rows: 3,
      foreign: [],
      settled: [],
    });
    const d1 = chain.entries[0]?.digest;
    expect(d1).toMatchObject({ seq: 1, runId: 'r1', previous: null, scans, keyId: signer.keyId });
    expect(d1?.files).toEqual([
      {
        key: 'history/dt=2026-11-20/a.parquet',
        sha256: sha256OfBytes(a),
        bytes: a.byteLength,
        rows: 3,
        dataset: 'history',
        dt: '2026-11-20',
        min: '2026-11-20T10:01:00.000Z',
        max: '2026-11-20T10:03:00.000Z',
      },
    ]);
    expect(chain.publicKey?.info.keyId).toBe(signer.keyId);

    await objects.put('history/dt=2026-11-21/b.parquet', await parquetOf([4], '2026-11-21T00:00:00.000Z'));
    clock.advance(60_000);
    const second = await appendDigest(deps(), { runId: 'r2', scans: [] });
    expect(second.files).toBe(1);
    const after = await readDigestChain(objects);
    expect(after.entries[1]?.digest?.previous).toEqual({
      key: digestKeys.digest(1),
      sha256: after.entries[0]?.sha256,
    });
    expect(after.entries[1]?.digest?.files.map((f) => f.key)).toEqual(['history/dt=2026-11-21/b.parquet']);
    expect(checkChain(after)).toEqual([]);
  });

  it('writes a digest even when nothing was added, so a silent stretch is visible', async () => {
    await appendDigest(deps(), { runId: 'r1', scans: [] });
    const again = await appendDigest(deps(), { runId: 'r2', scans });
    expect(again).toMatchObject({ seq: 2, files: 0, rows: 0 });
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).ok).toBe(true);
  });

  it('heals a crash between publishing data and writing the digest: the next call lists it', async () => {
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1]));
    await appendDigest(deps(), { runId: 'r1', scans });
    // run r2 published a file and died before its digest
    await objects.put('history/dt=2026-11-20/b.parquet', await parquetOf([2]));
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).failures).toEqual([
      expect.objectContaining({ kind: 'unlisted', object: 'history/dt=2026-11-20/b.parquet' }),
    ]);
    const healed = await appendDigest(deps(), { runId: 'r3', scans: [] });
    expect(healed.files).toBe(1);
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).ok).toBe(true);
  });

  it('keeps one chain when writers race: the loser of a position re-reads and takes the next one', async () => {
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1, 2]));
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => appendDigest(deps(), { runId: `r${i}`, scans: [] })),
    );
    expect(results.map((r) => r.seq).sort()).toEqual([1, 2, 3, 4]);
    expect(results.reduce((a, r) => a + r.files, 0)).toBe(1);
    const verified = await verifyArchive({ objects, clock }, { windowDays: 60 });
    expect(verified.failures).toEqual([]);
    expect(verified.digests).toBe(4);
  });

  it('never replaces the published public key, and refuses to sign with another key', async () => {
    await appendDigest(deps(), { runId: 'r1', scans: [] });
    const pem = await objects.get(digestKeys.publicKeyPem);
    const other = (await loadLocalKeys(join(dir, 'other-keys'))).signer;
    const error = await appendDigest({ ...deps(), signer: other }, { runId: 'r2', scans: [] }).catch(
      (e) => e,
    );
    expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain(signer.keyId);
    expect(await objects.get(digestKeys.publicKeyPem)).toEqual(pem);
    expect((await readDigestChain(objects)).entries).toHaveLength(1);
  });

  it('refuses with CONFIG_INVALID, signing nothing, when the published public key info is torn', async () => {
    await objects.put(digestKeys.publicKeyInfo, '{"keyId":');
    const error = await appendDigest(deps(), { runId: 'r1', scans: [] }).catch((e) => e);
    expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain(`${digestKeys.publicKeyInfo} is not valid JSON`);
    expect((await readDigestChain(objects)).entries).toHaveLength(0);
  });

  it('with the state, digests only committed files: a planted file stays out (and unlisted), a racing commit counts', async () => {
    const state = new MemoryStateStore();
    const file = (name: string) => manifestFile(name, true);
    const v1 = await state.putPartition({ dt: '2026-11-20', version: 0, files: [file('a.parquet')] });
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1]));
    await objects.put('history/dt=2026-11-20/planted.parquet', await parquetOf([2]));
    // No manifest at all for this partition (a lost state): its files are still digested.
    await objects.put('history/dt=2026-11-19/orphan.parquet', await parquetOf([3]));
    // Committed by a writer without the lease (the snapshot function) just after our first look at the
    // manifest, and published by the time the listing reaches it (S3 lists page by page).
    await objects.put('history/dt=2026-11-20/late.parquet', await parquetOf([4]));
    const getPartition = state.getPartition.bind(state);
    let looks = 0;
    const racing = {
      getPartition: async (dt: string, dataset?: 'history' | 'active') => {
        const m = await getPartition(dt, dataset);
        if (dt === '2026-11-20' && looks++ === 0) {
          await state.putPartition({ ...v1, files: [...v1.files, file('late.parquet')] });
        }
        return m;
      },
    };
    const d = await appendDigest({ ...deps(), state: racing }, { runId: 'r1', scans });
    expect(d.foreign).toEqual(['history/dt=2026-11-20/planted.parquet']);
    const listed = (await readDigestChain(objects)).entries
      .flatMap((e) => e.digest?.files ?? [])
      .map((f) => f.key);
    expect(listed.sort()).toEqual([
      'history/dt=2026-11-19/orphan.parquet',
      'history/dt=2026-11-20/a.parquet',
      'history/dt=2026-11-20/late.parquet',
    ]);
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).failures).toEqual([
      expect.objectContaining({ kind: 'unlisted', object: 'history/dt=2026-11-20/planted.parquet' }),
    ]);
  });

  it('from the head and the notes: lists committed notes only, keeps unpublished ones, settles dead ones, and steps over a racing digest', async () => {
    const state = new MemoryStateStore();
    const at = clock.now().toISOString();
    const file = manifestFile;
    await state.putPartition({
      dt: '2026-11-20',
      version: 0,
      files: [file('a.parquet', true), file('b.parquet', true), file('staged.parquet', false)],
    });
    const first = await appendDigest({ ...deps(), state }, { runId: 'r0', scans });
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1]));
    await objects.put('history/dt=2026-11-20/b.parquet', await parquetOf([2]));
    await objects.put('_staging/r/dt=2026-11-20/staged.parquet', await parquetOf([3]));
    // Never listed here, whatever its note says: a planted file under a noted name, and a dead note.
    await objects.put('history/dt=2026-11-20/planted.parquet', await parquetOf([4]));
    const note = (name: string) => ({
      key: `history/dt=2026-11-20/${name}`,
      stagingKey: `_staging/r/dt=2026-11-20/${name}`,
      at,
    });
    const pending = ['a.parquet', 'b.parquet', 'staged.parquet', 'planted.parquet', 'dead.parquet'].map(note);
    const head = { seq: first.seq, key: first.key, sha256: first.sha256, at };
    // Another writer appends after the same head first, listing b.
    const racer = await appendDigest(
      { ...deps(), state },
      { runId: 'racer', scans, pending: [note('b.parquet')], head },
    );
    const d = await appendDigest({ ...deps(), state }, { runId: 'r1', scans, pending, head });
    expect(d.seq).toBe(racer.seq + 1);
    const chain = await readDigestChain(objects);
    expect(chain.entries.at(-1)?.digest?.previous).toEqual({ key: racer.key, sha256: racer.sha256 });
    expect(chain.entries.at(-1)?.digest?.files.map((f) => f.key)).toEqual([
      'history/dt=2026-11-20/a.parquet',
    ]);
    expect(d.foreign).toEqual(['history/dt=2026-11-20/planted.parquet']);
    expect(d.settled.sort()).toEqual(
      ['a.parquet', 'b.parquet', 'dead.parquet', 'planted.parquet'].map((n) => note(n).key),
    );
    expect(checkChain(chain)).toEqual([]);
  });

  it('lists quarantined records too (hash and size, no rows), so verify catches one changed, removed or added', async () => {
    const q = 'quarantine/day=2026-11-20/abc.json';
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1]));
    await objects.put(q, '{"day":"2026-11-20","reason":"bad port","raw":{"port":70000}}\n');
    await appendDigest(deps(), { runId: 'r1', scans });
    const [entry] = (await readDigestChain(objects)).entries;
    expect(entry?.digest?.files.find((f) => f.key === q)).toMatchObject({
      dataset: 'quarantine',
      dt: '2026-11-20',
      rows: null,
      bytes: expect.any(Number),
    });
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).failures).toEqual([]);

    await writeFile(join(dir, 'archive', q), '{"day":"2026-11-20","reason":"edited","raw":{}}\n');
    await objects.put('quarantine/day=2026-11-20/extra.json', '{}\n');
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).failures).toEqual([
      expect.objectContaining({ kind: 'hash', object: q }),
      expect.objectContaining({ kind: 'unlisted', object: 'quarantine/day=2026-11-20/extra.json' }),
    ]);
    await rm(join(dir, 'archive', q));
    expect((await verifyArchive({ objects, clock }, { windowDays: 60 })).failures).toContainEqual(
      expect.objectContaining({ kind: 'missing-file', object: q }),
    );
  });
});

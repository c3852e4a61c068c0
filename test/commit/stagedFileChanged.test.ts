import { createHash, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { publishStaged } from '../../lib/archive/commit/publishStaged.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import { readDigestChain } from '../../lib/archive/digest/readDigestChain.ts';
import type { ManifestFile } from '../../lib/archive/state/partitionManifest.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { type Logger, silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { idLines } from './idLines.ts';

const DT = '2026-11-20';
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const tmp = tempDirPer('ta-staged-changed-', 'test');
const clock = new ManualClock('2026-11-22T06:00:00.000Z');
const signer = ed25519Signer(
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Log lines at error level, as the run's log would show them. */
function errorLog(): Logger & { errors: { message: string; fields: Record<string, unknown> }[] } {
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  return { ...silentLogger, errors, error: (message, fields = {}) => errors.push({ message, fields }) };
}

/** Another writer that replaces every staged history file right after the committer uploads it. */
function swappingStagedFiles(objects: ObjectStore, evil: string): ObjectStore {
  return {
    ...objects,
    async putFile(key, localPath) {
      const bytes = await objects.putFile(key, localPath);
      if (key.startsWith(archiveKeys.stagingAreas.history)) await objects.put(key, evil);
      return bytes;
    },
  };
}

async function signedKeys(objects: ObjectStore): Promise<string[]> {
  const chain = await readDigestChain(objects);
  return chain.entries.flatMap((e) => e.digest?.files.map((f) => f.key) ?? []);
}

describe('a staged file changed between staging and publish', () => {
  it('fails its commit with STAGED_FILE_CHANGED, is never published, leaves the manifest, and no signed digest covers it', async () => {
    const objects = createFileObjectStore(join(tmp.dir, 'swap'));
    const state = new MemoryStateStore();
    const committer = new PartitionCommitter({
      objects: swappingStagedFiles(objects, `${B}\n`),
      state,
      clock,
      logger: silentLogger,
      runId: 'r1',
      fence: 1,
      tmpDir: join(tmp.dir, 'work'),
    });
    const error = await committer
      .commit(idLines, DT, new Set([A]), async function* () {
        yield [A, A] as const;
      })
      .catch((e: unknown) => e);
    expect(ArchiverError.is(error, 'STAGED_FILE_CHANGED')).toBe(true);
    const details = (error as ArchiverError).details as { key: string; expected: { sha256: string } };
    expect(details.key).toMatch(/^_staging\/history\/r1\/dt=2026-11-20\//);
    expect(details.expected.sha256).toBe(sha(A));
    const published: string[] = [];
    for await (const o of objects.list(archiveKeys.historyPrefix)) published.push(o.key);
    expect(published).toEqual([]);
    expect((await state.getPartition(DT, 'history'))?.files ?? []).toEqual([]);

    const digest = await appendDigest(
      { objects, signer, clock, logger: silentLogger, state },
      { runId: 'r1', scans: [], pending: (await state.getMeta())?.pendingDigest ?? [] },
    );
    expect(digest.files).toBe(0);
    expect(await signedKeys(objects)).toEqual([]);
  });

  it("is refused by the run that publishes pending files: reported, while the partition's other file is published and digested", async () => {
    const objects = createFileObjectStore(join(tmp.dir, 'pending'));
    const state = new MemoryStateStore();
    const entry = (name: string, staged: string): ManifestFile => ({
      name,
      stagingKey: archiveKeys.stagingOf('history', 'r1', DT, name),
      rows: 1,
      bytes: Buffer.byteLength(staged),
      sha256: sha(staged),
      runId: 'r1',
      fence: 1,
      committedAt: clock.now().toISOString(),
      published: false,
    });
    const good = entry('20261122T060000Z-r1-0001.parquet', A);
    const swapped = entry('20261122T060000Z-r1-0002.parquet', B);
    await objects.put(good.stagingKey, A);
    // Same size, other bytes: only the hash tells them apart.
    await objects.put(swapped.stagingKey, 'c'.repeat(32));
    await state.putPartition({ dt: DT, files: [good, swapped], version: 0 });

    const logger = errorLog();
    const result = await publishStaged({ objects, state, clock, logger }, { kind: 'all' });
    expect(result).toMatchObject({ published: 1, broken: [], changed: [swapped.stagingKey] });
    expect(logger.errors).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ code: 'STAGED_FILE_CHANGED' }) }),
    ]);
    const manifest = await state.getPartition(DT, 'history');
    expect(manifest?.files.map((f) => [f.name, f.published])).toEqual([[good.name, true]]);
    expect(await objects.get(archiveKeys.data(DT, swapped.name))).toBeUndefined();

    const digest = await appendDigest(
      { objects, signer, clock, logger: silentLogger, state },
      {
        runId: 'r2',
        scans: [],
        pending: [good, swapped].map((f) => ({
          key: archiveKeys.data(DT, f.name),
          stagingKey: f.stagingKey,
          at: f.committedAt,
        })),
      },
    );
    expect(digest.files).toBe(1);
    expect(await signedKeys(objects)).toEqual([archiveKeys.data(DT, good.name)]);
  });

  it('is left out of the digest when its published bytes are not what its manifest recorded (changed between the check and the copy)', async () => {
    const objects = createFileObjectStore(join(tmp.dir, 'published'));
    const state = new MemoryStateStore();
    const name = '20261122T060000Z-r1-0001.parquet';
    const key = archiveKeys.data(DT, name);
    await objects.put(key, B);
    await state.putPartition({
      dt: DT,
      files: [
        {
          name,
          stagingKey: archiveKeys.stagingOf('history', 'r1', DT, name),
          rows: 1,
          bytes: A.length,
          sha256: sha(A),
          runId: 'r1',
          fence: 1,
          committedAt: clock.now().toISOString(),
          published: true,
        },
      ],
      version: 0,
    });
    // Both ways a digest finds files: listing the archive (a reconciliation), and the notes after a head.
    const listed = await appendDigest(
      { objects, signer, clock, logger: silentLogger, state },
      { runId: 'r1', scans: [] },
    );
    expect(listed).toMatchObject({ files: 0, foreign: [key] });
    const head = { seq: listed.seq, key: listed.key, sha256: listed.sha256, at: listed.createdAt };
    const noted = await appendDigest(
      { objects, signer, clock, logger: silentLogger, state },
      { runId: 'r2', scans: [], head, pending: [{ key, at: clock.now().toISOString() }] },
    );
    expect(noted).toMatchObject({ files: 0, foreign: [key], settled: [key] });
    expect(await signedKeys(objects)).toEqual([]);
  });
});

import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { parquetOf } from '../digest/digestFixtures.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const OLD = 'history/dt=2026-11-01/old.parquet';
const NEW = 'history/dt=2026-11-21/new.parquet';
const tmp = tempDirPer('ta-since-');

/** Two runs three weeks apart: the first digests an old partition, the second a recent one. */
async function archive(name: string): Promise<string> {
  const root = join(tmp.dir, name);
  const objects = createFileObjectStore(root);
  const { signer } = await loadLocalKeys(join(tmp.dir, `${name}-keys`));
  await objects.put(OLD, await parquetOf([1, 2], '2026-11-01T10:00:00.000Z'));
  await appendDigest(
    { objects, signer, clock: new ManualClock('2026-11-02T06:00:00.000Z'), logger: silentLogger },
    { runId: 'r1', scans: [] },
  );
  await objects.put(NEW, await parquetOf([3], '2026-11-21T10:00:00.000Z'));
  await appendDigest(
    { objects, signer, clock: new ManualClock('2026-11-22T06:00:00.000Z'), logger: silentLogger },
    { runId: 'r2', scans: [] },
  );
  return root;
}

const check = (root: string, since?: string) =>
  verifyArchive(
    { objects: createFileObjectStore(root), clock: new ManualClock('2026-11-23T06:00:00.000Z') },
    { windowDays: 60, ...(since ? { since } : {}) },
  );

describe('verify --since DAY', () => {
  it('checks only digests written and partitions from that day on; the full check still sees the rest', async () => {
    const root = await archive('old-damaged');
    await appendFile(join(root, OLD), 'x'); // an old file changed
    const quick = await check(root, '2026-11-15');
    expect(quick.failures).toEqual([]);
    expect(quick.since).toBe('2026-11-15');
    const full = await check(root);
    // Appending a byte breaks the footer too: the row count is unreadable as well as the hash changed.
    expect(full.failures.map((f) => [f.kind, f.object])).toEqual([
      ['hash', OLD],
      ['rows', OLD],
    ]);
  });

  it('an old digest edited is still seen by the quick check, through the link into the first digest it checks', async () => {
    const root = await archive('old-digest');
    const d1 = join(root, 'digests/0000000001.json');
    await writeFile(d1, (await readFile(d1, 'utf8')).replace('"runId": "r1"', '"runId": "forged"'));
    const quick = await check(root, '2026-11-15');
    expect(quick.failures.map((f) => [f.kind, f.object])).toEqual([['chain', 'digests/0000000002.json']]);
  });

  it('a damaged recent file, a planted recent file, an edited recent digest: each fails the quick check too', async () => {
    const root = await archive('new-damaged');
    await appendFile(join(root, NEW), 'x');
    await writeFile(
      join(root, 'history/dt=2026-11-21/planted.parquet'),
      await parquetOf([9], '2026-11-21T11:00:00.000Z'),
    );
    const d2 = join(root, 'digests/0000000002.json');
    await writeFile(d2, (await readFile(d2, 'utf8')).replace('"runId": "r2"', '"runId": "forged"'));
    const quick = await check(root, '2026-11-15');
    expect(quick.failures.map((f) => [f.kind, f.object]).sort()).toEqual([
      ['hash', NEW],
      ['rows', NEW],
      ['signature', 'digests/0000000002.json'],
      ['unlisted', 'history/dt=2026-11-21/planted.parquet'],
    ]);
  });
});

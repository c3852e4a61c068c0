import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { verifyWeekly } from '../../lib/integrity/verify/verifyWeekly.ts';
import { historyKeys, startSignedArchive } from '../digest/proofKit.ts';
import { TEST_TOKEN_KEY, type World } from '../support/engineKit.ts';

let world: World;
let signer: DigestSigner;
let archiveDir: string;
let scratch: string;

beforeAll(async () => {
  // The third run adds little or nothing: still a digest.
  ({ world, signer, dir: archiveDir } = await startSignedArchive(3));
  scratch = await mkdtemp(join(tmpdir(), 'ta-verify-test-'));
});
afterAll(async () => {
  await world?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A private copy of the archive to damage, and a verify over it (no API) at `at`. */
async function tampered(
  damage: (dir: string) => Promise<void>,
  at = world.clock.now(),
): Promise<VerifyResult> {
  const dir = await mkdtemp(join(scratch, 'copy-'));
  await cp(archiveDir, dir, { recursive: true });
  await damage(dir);
  return verifyArchive(
    { objects: createFileObjectStore(dir), clock: new ManualClock(at) },
    { windowDays: 60 },
  );
}

describe('verifyArchive', () => {
  it('passes an intact archive read-only, without state: chain, signatures, hashes, rows, listing, no doubles', async () => {
    const result = await tampered(async () => {});
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.digests).toBe(3);
    expect(result.lastDigestAt).toBe(world.clock.now().toISOString());
    expect(result.files).toBe((await historyKeys(archiveDir)).length);
    expect(result.records).toBe(result.rows);
  });

  it('fails, naming the file, on a changed value with the same row count', async () => {
    let key = '';
    const result = await tampered(async (dir) => {
      key = (await historyKeys(dir))[3] as string;
      const rows = (await readHistoryRows(await readFile(join(dir, key)))) as unknown as ArchiveRow[];
      (rows[0] as ArchiveRow).user_email = 'someone-else@example.com';
      const out = join(dir, 'rewritten.parquet');
      await writeHistoryParquet(rows, out);
      await writeFile(join(dir, key), await readFile(out));
      await rm(out);
    });
    expect(result.ok).toBe(false);
    expect(result.failures).toEqual([expect.objectContaining({ kind: 'hash', object: key })]);
    expect(result.failures[0]?.message).toContain(key);
  });

  it('fails, naming the file, when a file of a day outside the window was removed', async () => {
    let key = '';
    const later = new Date(world.clock.now().getTime() + 90 * 86_400_000);
    const result = await tampered(async (dir) => {
      key = (await historyKeys(dir))[0] as string;
      await rm(join(dir, key));
    }, later);
    expect(key.slice('history/dt='.length, 'history/dt='.length + 10) < toDay(later)).toBe(true);
    expect(result.failures).toEqual([expect.objectContaining({ kind: 'missing-file', object: key })]);
    expect(result.failures[0]?.message).toContain(key);
  });

  it('fails, naming the copy, on an extra copy of a file', async () => {
    let copy = '';
    const result = await tampered(async (dir) => {
      const key = (await historyKeys(dir))[5] as string;
      copy = key.replace(/\.parquet$/, '-copy.parquet');
      await cp(join(dir, key), join(dir, copy));
    });
    expect(result.failures).toEqual([
      expect.objectContaining({ kind: 'unlisted', object: copy }),
      expect.objectContaining({ kind: 'duplicate', object: copy }),
    ]);
  });

  it('reports a foreign file whose record_ids are not archiver ids, and checks the rest', async () => {
    let foreign = '';
    const result = await tampered(async (dir) => {
      const key = (await historyKeys(dir))[2] as string;
      const rows = (await readHistoryRows(await readFile(join(dir, key)))) as unknown as ArchiveRow[];
      foreign = key.replace(/[^/]+\.parquet$/, 'foreign.parquet');
      await writeHistoryParquet(
        rows.map((r, i) => ({ ...r, record_id: `not-an-id-${i}` })),
        join(dir, foreign),
      );
    });
    expect(result.failures).toEqual([
      expect.objectContaining({ kind: 'unlisted', object: foreign }),
      expect.objectContaining({
        kind: 'rows',
        object: foreign,
        message: expect.stringContaining('not 32 hex'),
      }),
    ]);
  });

  it('reads data files by ranges of at most 1 MiB, never whole, and still finds a double in a big file', async () => {
    const dir = await mkdtemp(join(scratch, 'ranges-'));
    await cp(archiveDir, dir, { recursive: true });
    const key = (await historyKeys(dir))[1] as string;
    const [first] = (await readHistoryRows(await readFile(join(dir, key)))) as unknown as ArchiveRow[];
    const big = key.replace(/[^/]+\.parquet$/, 'big.parquet');
    const hex = (i: number) => createHash('md5').update(String(i)).digest('hex');
    // 60,000 random ids in 15 row groups (over 1 MiB), the last row repeating the first id.
    const rows = Array.from({ length: 60_000 }, (_, i) => ({
      ...(first as ArchiveRow),
      record_id: hex(i % 59_999),
    }));
    await writeHistoryParquet(rows, join(dir, big), { rowGroupSize: 4_000 });
    const size = (await stat(join(dir, big))).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    const inner = createFileObjectStore(dir);
    const wholeReads: string[] = [];
    let largestRange = 0;
    const objects: ObjectStore = {
      ...inner,
      get: (k) => {
        if (k.startsWith('history/')) wholeReads.push(k);
        return inner.get(k);
      },
      getRange: (k, start, end) => {
        largestRange = Math.max(largestRange, end - start);
        return inner.getRange(k, start, end);
      },
    };
    const result = await verifyArchive(
      { objects, clock: new ManualClock(world.clock.now()) },
      { windowDays: 60 },
    );
    expect(wholeReads).toEqual([]);
    expect(largestRange).toBeLessThanOrEqual(1024 * 1024);
    expect(result.failures).toEqual([
      expect.objectContaining({ kind: 'unlisted', object: big }),
      expect.objectContaining({
        kind: 'duplicate',
        object: big,
        message: `${big} holds 1 record_id(s) twice`,
      }),
    ]);
  });

  it('fails, naming the digest, when a digest was removed', async () => {
    const removed = digestKeys.digest(2);
    const result = await tampered(async (dir) => {
      await rm(join(dir, removed));
    });
    expect(result.ok).toBe(false);
    expect(result.failures).toContainEqual(expect.objectContaining({ kind: 'chain', object: removed }));
    // The files only the removed digest listed are now unlisted, and each is named.
    for (const f of result.failures.filter((x) => x.kind !== 'chain')) {
      expect(f.kind).toBe('unlisted');
      expect(f.object).toMatch(/^history\//);
    }
  });

  it('fails, naming the digest, on a digest with a bad signature', async () => {
    const key = digestKeys.digest(3);
    const result = await tampered(async (dir) => {
      const d = JSON.parse(await readFile(join(dir, key), 'utf8'));
      d.createdAt = '2026-01-01T00:00:00.000Z'; // re-dated, signature kept
      await writeFile(join(dir, key), JSON.stringify(d));
    });
    expect(result.failures).toEqual([expect.objectContaining({ kind: 'signature', object: key })]);
  });

  it('fails, naming the next digest, when an earlier digest was edited and re-signed by someone else', async () => {
    const key = digestKeys.digest(1);
    const result = await tampered(async (dir) => {
      const d = JSON.parse(await readFile(join(dir, key), 'utf8'));
      d.files = d.files.slice(1);
      await writeFile(join(dir, key), JSON.stringify(d));
    });
    expect(result.failures).toContainEqual(expect.objectContaining({ kind: 'signature', object: key }));
    expect(result.failures).toContainEqual(
      expect.objectContaining({ kind: 'chain', object: digestKeys.digest(2) }),
    );
  });

  it('passes an intact archive with pending late sessions against the API, and reports them', async () => {
    world.clock.advance(6 * 3_600_000);
    const result = await verifyArchive(
      { objects: world.objects, clock: world.clock },
      { api: world.api, tokenKey: TEST_TOKEN_KEY, windowDays: 60, pageSize: 2000 },
    );
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.days).toHaveLength(60);
    expect(result.pending).toBeGreaterThan(0);
    expect(result.days.reduce((a, d) => a + d.missing, 0)).toBe(0);
  });

  it('reports records a complete scan should have archived as missing, naming the day', async () => {
    const dir = await mkdtemp(join(scratch, 'missing-'));
    await cp(archiveDir, dir, { recursive: true });
    // Drop the last digest's scans' coverage by claiming every day was scanned completely now.
    const objects = createFileObjectStore(dir);
    const { appendDigest } = await import('../../lib/archive/digest/appendDigest.ts');
    const days = Array.from({ length: 60 }, (_, i) =>
      toDay(new Date(world.clock.now().getTime() - i * 86_400_000)),
    );
    await appendDigest(
      { objects, signer, clock: world.clock, logger: world.deps().logger },
      {
        runId: 'claims',
        scans: days.map((day) => ({ day, scannedAt: world.clock.now().toISOString(), complete: true })),
      },
    );
    const result = await verifyArchive(
      { objects, clock: world.clock },
      { api: world.api, tokenKey: TEST_TOKEN_KEY, windowDays: 60, graceMs: 0 },
    );
    expect(result.ok).toBe(false);
    const missing = result.failures.filter((f) => f.kind === 'missing-records');
    expect(missing.length).toBeGreaterThan(0);
    // The same sessions ended within the default 48 h ingestion grace: pending, not missing.
    const lenient = await verifyArchive(
      { objects, clock: world.clock },
      { api: world.api, tokenKey: TEST_TOKEN_KEY, windowDays: 60 },
    );
    expect(lenient.failures).toEqual([]);
    expect(lenient.pending).toBeGreaterThan(0);
    for (const f of missing) expect(f.message).toContain(f.day as string);
  });
});

describe('the weekly verify against the API, an incremental week', () => {
  it('judges each day by its last complete scan in the whole chain, not in the new digests alone', async () => {
    const dir = await mkdtemp(join(scratch, 'weekly-'));
    // The store's times kept: the weekly compares them with the digests'.
    await cp(archiveDir, dir, { recursive: true, preserveTimestamps: true });
    const objects = createFileObjectStore(dir);
    const api = { api: world.api, tokenKey: TEST_TOKEN_KEY, windowDays: 60 };
    const first = await verifyWeekly({ objects, clock: world.clock }, api);
    expect(first.weekly.mode).toBe('full');
    expect(first.failures).toEqual([]);
    expect(first.pending).toBeGreaterThan(0);
    // The first week keeps each window day's last complete scan, as the whole chain records it.
    const scanned = first.days.filter((d) => d.lastScanAt !== null && d.lastScanAt !== first.lastDigestAt);
    expect(scanned.length).toBeGreaterThan(0);
    for (const d of scanned) expect(first.weekly.progress.lastScans?.[d.day]).toBe(d.lastScanAt);
    // A day later, a run that scanned today only: the older days' last scans are in older digests.
    world.clock.advance(86_400_000);
    const { appendDigest } = await import('../../lib/archive/digest/appendDigest.ts');
    await appendDigest(
      { objects, signer, clock: world.clock, logger: world.deps().logger },
      {
        runId: 'today-only',
        scans: [
          { day: toDay(world.clock.now()), scannedAt: world.clock.now().toISOString(), complete: true },
        ],
      },
    );
    world.clock.advance(3_600_000);
    const next = await verifyWeekly(
      { objects, clock: world.clock },
      { ...api, progress: first.weekly.progress },
    );
    expect(next.weekly.mode).toBe('incremental');
    // The auditor's verify reads the whole chain: the weekly judges every day as it does.
    const audit = await verifyArchive({ objects, clock: world.clock }, api);
    expect(next.days).toEqual(audit.days);
    expect(next.failures).toEqual([]);
    expect(next.pending).toBeGreaterThan(0);
    // A progress from before the scans were carried: the week reads them from the whole chain once.
    const { lastScans: _dropped, ...older } = first.weekly.progress;
    const upgraded = await verifyWeekly({ objects, clock: world.clock }, { ...api, progress: older });
    expect(upgraded.days).toEqual(audit.days);
  });
});

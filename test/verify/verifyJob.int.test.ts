import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { buildReportModel } from '../../lib/integrity/report/buildReportModel.ts';
import { esc } from '../../lib/integrity/report/html.ts';
import { renderReport } from '../../lib/integrity/report/renderReport.ts';
import { describeFullVerify, describeVerified } from '../../lib/integrity/verify/describeVerified.ts';
import { mergeVerifyJob, readLastFullVerify } from '../../lib/integrity/verify/mergeVerifyJob.ts';
import { planVerifyJob } from '../../lib/integrity/verify/planVerifyJob.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { verifyJobCost } from '../../lib/integrity/verify/verifyJobCost.ts';
import { verifyJobItem } from '../../lib/integrity/verify/verifyJobItem.ts';
import { type VerifyJobItem, verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { verifyWeekly } from '../../lib/integrity/verify/verifyWeekly.ts';
import { runAndDigest, startSignedArchive } from '../digest/proofKit.ts';
import type { World } from '../support/engineKit.ts';

let world: World;
let signer: DigestSigner;
let archiveDir: string;

beforeAll(async () => {
  ({ world, signer, dir: archiveDir } = await startSignedArchive());
}, 300_000);
afterAll(async () => {
  await world?.close();
});

/** Bytes and count of the files under `tops` of `dir` (default: the prefixes the chain lists). */
async function dataFiles(
  dir: string,
  tops = ['history', 'active', 'findings', 'quarantine'],
): Promise<{ files: number; bytes: number; sizes: Map<string, number> }> {
  let files = 0;
  let bytes = 0;
  const sizes = new Map<string, number>();
  for (const top of tops) {
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
        if (e.isDirectory()) await walk(join(d, e.name));
        else {
          const size = (await stat(join(d, e.name))).size;
          files++;
          bytes += size;
          sizes.set(relative(dir, join(d, e.name)), size);
        }
      }
    };
    await walk(join(dir, top));
  }
  return { files, bytes, sizes };
}

async function itemsOf(
  objects: ReturnType<typeof createFileObjectStore>,
  key: string,
): Promise<VerifyJobItem[]> {
  return JSON.parse(new TextDecoder().decode(await objects.get(key)));
}

describe('a verify job, step by step over a real archive', () => {
  it('reads every byte of every data file, none more than verify does, in no more requests than its cost model counts, with the figures of verify', async () => {
    const { objects, counts } = countingObjectStore(createFileObjectStore(archiveDir));
    const deps = { objects, clock: world.clock };
    const plan = await planVerifyJob(deps, 'counted');
    const items = await itemsOf(objects, plan.itemsKey);
    for (const item of items) await verifyJobItem(deps, plan, item);
    const result = await mergeVerifyJob(deps, 'counted');
    const full = countingObjectStore(createFileObjectStore(archiveDir));
    const verified = await verifyArchive({ objects: full.objects, clock: world.clock }, { windowDays: 60 });
    expect(result).toMatchObject({
      ok: true,
      files: verified.files,
      rows: verified.rows,
      records: verified.records,
    });
    // The last full verify, as `status` prints it.
    expect(describeFullVerify(await readLastFullVerify(objects))).toContain(
      `counted, ${result.checkedAt}, up to digest ${verified.head?.seq}: ${verified.files} file(s) in ${items.length - 1} folder(s) and the chain, intact`,
    );
    const data = await dataFiles(archiveDir);
    const cost = verifyJobCost({ ...data, items: items.length, digests: verified.digests });
    const by = counts.byMethod;
    expect((by.get ?? 0) + (by.getRange ?? 0) + (by.head ?? 0)).toBeLessThanOrEqual(cost.gets);
    expect((by.put ?? 0) + (by.putIfAbsent ?? 0) + (by.list ?? 0)).toBeLessThanOrEqual(cost.putsAndLists);
    // Every data byte is read (the hash), and no more than `verify` reads of the archive; beside that, the
    // chain once more (the plan and the chain item each read it) and the job's own listings and results.
    const job = await dataFiles(join(archiveDir, 'verify-jobs', 'counted'), ['listed', 'results']);
    const chain = await dataFiles(archiveDir, ['digests']);
    expect(counts.bytesRead).toBeGreaterThanOrEqual(data.bytes);
    expect(counts.bytesRead).toBeLessThanOrEqual(full.counts.bytesRead + chain.bytes + 2 * job.bytes);
    // File by file: each byte of each data file read, and no file read more than `verify` reads it.
    expect(data.sizes.size).toBeGreaterThan(1);
    const perFile = (read: typeof counts.read) =>
      [...data.sizes.keys()].map(
        (k) => `${k}: ${read.covered(k)} of ${data.sizes.get(k)} bytes, ${read.bytes(k)} read`,
      );
    const want = [...data.sizes].map(
      ([k, size]) => `${k}: ${size} of ${size} bytes, ${full.counts.read.bytes(k)} read`,
    );
    expect(perFile(counts.read)).toEqual(want);
  });

  it('started again, reuses every finished item: one read each, no data read', async () => {
    const objects = createFileObjectStore(archiveDir);
    const plan = await planVerifyJob({ objects, clock: world.clock }, 'again');
    const items = await itemsOf(objects, plan.itemsKey);
    for (const item of items) await verifyJobItem({ objects, clock: world.clock }, plan, item);
    const counting = countingObjectStore(objects);
    const deps = { objects: counting.objects, clock: world.clock };
    expect(await planVerifyJob(deps, 'again')).toEqual(plan);
    const outcomes = [];
    for (const item of items) outcomes.push(await verifyJobItem(deps, plan, item));
    expect(outcomes.every((o) => o.reused)).toBe(true);
    expect(counting.counts.byMethod).toEqual({ get: items.length + 1 });
  });

  it('does not fail a file a run published during the job: a digest written since lists it', async () => {
    const objects = createFileObjectStore(archiveDir);
    const deps = { objects, clock: world.clock };
    const plan = await planVerifyJob(deps, 'during-a-run');
    world.clock.advance(6 * 3_600_000);
    const summary = await runAndDigest(world, signer);
    expect(summary.digest?.files ?? 0).toBeGreaterThan(0);
    for (const item of await itemsOf(objects, plan.itemsKey)) await verifyJobItem(deps, plan, item);
    const result = await mergeVerifyJob(deps, 'during-a-run');
    expect(result.failures).toEqual([]);
    // The run's new files landed in folders the plan had: unlisted up to the planned head, listed since.
    expect(result.listedSince).toBeGreaterThan(0);
    expect(result.head).toEqual(plan.head);
    // The chain checked is the planned one: its head is still in the chain, which only grew.
    const stored = await objects.get(verifyJobKeys.result('during-a-run'));
    expect(JSON.parse(new TextDecoder().decode(stored))).toEqual(result);
  });

  it('counts as the last full check: the next weekly verify records its time, and the report shows it', async () => {
    const dir = await mkdtemp(join(world.dir, 'weekly-copy-'));
    await cp(archiveDir, dir, { recursive: true });
    await rm(join(dir, 'reports'), { recursive: true, force: true });
    const objects = createFileObjectStore(dir);
    const clock = new ManualClock(world.clock.now());
    const first = await verifyWeekly({ objects, clock }, { windowDays: 60 });
    expect(first.weekly.mode).toBe('full');
    const firstFullAt = first.weekly.progress.fullAt;
    expect(firstFullAt).toBe(clock.now().toISOString());
    const noJob = await buildReportModel({ objects, clock, windowDays: 60 });
    expect(renderReport(noJob)).toContain('<span data-figure="fullVerifyJob">none');

    clock.advance(2 * 86_400_000);
    const plan = await planVerifyJob({ objects, clock }, 'audit');
    for (const item of await itemsOf(objects, plan.itemsKey))
      await verifyJobItem({ objects, clock }, plan, item);
    const job = await mergeVerifyJob({ objects, clock }, 'audit');
    expect(job.checkedAt).toBe(clock.now().toISOString());

    clock.advance(5 * 86_400_000);
    const next = await verifyWeekly({ objects, clock }, { windowDays: 60, progress: first.weekly.progress });
    expect(next.weekly.mode).toBe('incremental');
    expect(next.weekly.progress.fullAt).toBe(job.checkedAt);
    expect(describeVerified(next.weekly.progress)).toContain(`last full check ${job.checkedAt}`);
    // A later full check is not moved back by the older job.
    const later = { ...next.weekly.progress, fullAt: clock.now().toISOString() };
    const after = await verifyWeekly({ objects, clock }, { windowDays: 60, progress: later });
    expect(after.weekly.progress.fullAt).toBe(later.fullAt);

    const html = renderReport(await buildReportModel({ objects, clock, windowDays: 60 }));
    expect(html).toContain(`<span data-figure="fullVerifyJob">${esc(describeFullVerify(job))}</span>`);
  });

  it('names a changed digest as verify does: the chain item runs the chain checks', async () => {
    const dir = await mkdtemp(join(world.dir, 'chain-copy-'));
    await cp(archiveDir, dir, { recursive: true });
    const first = join(dir, 'digests', '0000000001.json');
    await writeFile(first, (await readFile(first, 'utf8')).replace('"runId": "', '"runId": "x'));
    const objects = createFileObjectStore(dir);
    const deps = { objects, clock: world.clock };
    const plan = await planVerifyJob(deps, 'chain');
    for (const item of await itemsOf(objects, plan.itemsKey)) await verifyJobItem(deps, plan, item);
    const result = await mergeVerifyJob(deps, 'chain');
    const verified = await verifyArchive({ objects, clock: world.clock }, { windowDays: 60 });
    const set = (f: { kind: string; object?: string }[]) => f.map((x) => `${x.kind} ${x.object}`).sort();
    expect(set(result.failures)).toEqual(
      expect.arrayContaining(['chain digests/0000000002.json', 'signature digests/0000000001.json']),
    );
    expect(set(result.failures)).toEqual(set(verified.failures));
  });
});

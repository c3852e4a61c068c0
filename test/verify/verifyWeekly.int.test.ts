import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChecksumJobsStandIn } from '../../devkit/checksumJobsStandIn.ts';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import { mapJobObjects } from '../../lib/archive/store/mapJobObjects.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { checkChecksumReports } from '../../lib/integrity/verify/checkChecksumReport.ts';
import { describeFullVerify } from '../../lib/integrity/verify/describeVerified.ts';
import { mergeVerifyJob } from '../../lib/integrity/verify/mergeVerifyJob.ts';
import { planVerifyJob } from '../../lib/integrity/verify/planVerifyJob.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { verifyJobItem } from '../../lib/integrity/verify/verifyJobItem.ts';
import { verifyJobItemSchema } from '../../lib/integrity/verify/verifyJobTypes.ts';
import type { ChecksumVerdict, VerifyProgress } from '../../lib/integrity/verify/verifyProgress.ts';
import { verifyWeekly, type WeeklyVerifyResult } from '../../lib/integrity/verify/verifyWeekly.ts';
import { parquetOf } from '../digest/digestFixtures.ts';
import { SimulatedStore } from './simulatedStore.ts';

const WEEK = 7 * 86_400_000;
const PERIOD = 13;
const signer = ed25519Signer(
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
);
let parquet: Uint8Array;
beforeAll(async () => {
  parquet = await parquetOf([1, 2, 3]);
});

/** The bytes with byte 100 flipped: a change its hash shows and its size does not. */
const flipByte100 = (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 100 ? x ^ 1 : x));

/**
 * An archive that grows a week at a time on a simulated clock: each week one run publishes a history file
 * and a quarantined record and appends its digest; the weekly verify runs after it.
 */
class SimulatedArchive {
  readonly clock = new ManualClock('2024-01-01T00:00:00.000Z');
  readonly store: SimulatedStore;
  progress: VerifyProgress | undefined;
  week = 0;
  /** The week each file was written. */
  readonly writtenIn = new Map<string, number>();

  /** With store-side checksum jobs: run between weeks (as S3 does), judged when their reports are in. */
  readonly jobs: ChecksumJobsStandIn | undefined;
  /** Keys the jobs hashed in each judged job, by week: what the store checked. */
  readonly hashedIn = new Map<string, number>();

  constructor(checksums: boolean, jobs = false) {
    this.store = new SimulatedStore(this.clock, checksums);
    this.jobs = jobs ? new ChecksumJobsStandIn(this.store) : undefined;
  }

  /** Between weeks: the submitted jobs run, and their reports are judged (a report checker's work). */
  async betweenWeeks(): Promise<ChecksumVerdict[]> {
    if (!this.jobs || !this.progress?.checksums) return [];
    this.clock.advance(3_600_000);
    await this.jobs.runPending();
    const judged = await checkChecksumReports(
      { objects: this.store, jobs: this.jobs },
      this.progress.checksums,
      this.clock.now(),
    );
    this.progress = { ...this.progress, checksums: judged.next };
    for (const v of judged.judged) {
      const report = await this.jobs.report(v.id);
      for await (const row of report?.rows ?? []) if (v.ok) this.hashedIn.set(row.key, this.week);
    }
    return judged.judged;
  }

  async runWeek(): Promise<void> {
    this.clock.advance(WEEK);
    this.week++;
    const day = this.clock.now().toISOString().slice(0, 10);
    const files = [`history/dt=${day}/w${this.week}.parquet`, `quarantine/day=${day}/q${this.week}.json`];
    await this.store.put(files[0] as string, parquet);
    await this.store.put(files[1] as string, `{"week":${this.week}}\n`);
    for (const f of files) this.writtenIn.set(f, this.week);
    this.clock.advance(60_000);
    await appendDigest(
      { objects: this.store, signer, clock: this.clock, logger: silentLogger },
      { runId: `w${this.week}`, scans: [] },
    );
  }

  async verify(): Promise<WeeklyVerifyResult & { checked: Set<string> }> {
    this.clock.advance(3_600_000);
    this.store.takeChecked();
    const result = await verifyWeekly(
      { objects: this.store, clock: this.clock, ...(this.jobs ? { jobs: this.jobs } : {}) },
      { windowDays: 60, periodWeeks: PERIOD, ...(this.progress ? { progress: this.progress } : {}) },
    );
    this.progress = result.weekly.progress;
    return { ...result, checked: this.store.takeChecked() };
  }

  /**
   * Runs weeks, each checked (and the jobs run between them), until a check reports `object` changed (a
   * hash failure): the week it did, from 1, or undefined when none did within one period.
   */
  async weekReportingChanged(object: string): Promise<number | undefined> {
    for (let w = 1; w <= PERIOD; w++) {
      await this.runWeek();
      const r = await this.verify();
      if (r.failures.some((f) => f.kind === 'hash' && f.object === object)) return w;
      await this.betweenWeeks();
    }
    return undefined;
  }

  /** Runs a week, then changes a byte of the Parquet file it wrote, its date kept: that file's key. */
  async weekWithChangedFile(): Promise<string> {
    await this.runWeek();
    const fresh = [...this.writtenIn].find(([f, week]) => week === this.week && f.endsWith('.parquet'))?.[0];
    await this.store.tamper(fresh as string, flipByte100, true);
    return fresh as string;
  }

  dataFiles(): string[] {
    return [...this.writtenIn.keys()];
  }
}

async function twoYearsOld(checksums: boolean, jobs = false): Promise<SimulatedArchive> {
  const a = new SimulatedArchive(checksums, jobs);
  for (let i = 0; i < 104; i++) await a.runWeek();
  const first = await a.verify();
  expect(first.weekly.mode).toBe('full');
  expect(first.failures).toEqual([]);
  return a;
}

describe('verifyArchive, the full check', () => {
  it('tells its progress after each file it checks, up to every file listed', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 5; i++) await a.runWeek();
    const seen: { files: number; listed: number }[] = [];
    const r = await verifyArchive(
      { objects: a.store, clock: a.clock },
      { windowDays: 60, onProgress: ({ files, listed }) => seen.push({ files, listed }) },
    );
    expect(r.ok).toBe(true);
    expect(seen.map((p) => p.files)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(seen.at(-1)?.listed).toBe(10);
  });
});

/** A run whose state's manifests name no file: its digest leaves every undigested file out (planted, or foreign). */
function appendDigestLeavingOut(a: SimulatedArchive, runId: string) {
  return appendDigest(
    {
      objects: a.store,
      signer,
      clock: a.clock,
      logger: silentLogger,
      state: { getPartition: async (dt: string) => ({ dt, version: 1, files: [] }) } as never,
    },
    { runId, scans: [] },
  );
}

describe('a file published before the digest that lists it (a snapshot between two runs)', () => {
  // A run publishes its files, then appends the digest that lists them; the snapshots' wait for the next run's.
  const SNAPSHOT = 'history/dt=2024-01-15/20240115T205500Z-r9-0001.parquet';

  it('awaits the next digest in the weekly full check: reported apart, not a failure; the next digest lists it', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 2; i++) await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    const weekly = { windowDays: 60, awaitNewestDigest: true };
    const r = await verifyArchive({ objects: a.store, clock: a.clock }, weekly);
    expect(r.failures).toEqual([]);
    expect(r.awaitingDigest).toEqual([SNAPSHOT]);
    // An auditor's verify (the option unset) names it: every unlisted object is a failure there.
    const audit = await verifyArchive({ objects: a.store, clock: a.clock }, { windowDays: 60 });
    expect(audit.failures).toContainEqual(expect.objectContaining({ kind: 'unlisted', object: SNAPSHOT }));
    await a.runWeek();
    const next = await verifyArchive({ objects: a.store, clock: a.clock }, weekly);
    expect(next.failures).toEqual([]);
    expect(next.awaitingDigest).toBeUndefined();
  });

  it('the weekly verify over it: the first week sets it aside, and the next week judges it by the digests since', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 2; i++) await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    const first = await a.verify();
    expect(first.weekly.mode).toBe('full');
    expect(first.failures).toEqual([]);
    // Listed by the next run's digest: accounted for.
    await a.runWeek();
    expect((await a.verify()).failures).toEqual([]);
  });

  it('the weekly verify over one no digest comes to list (planted): set aside one week, named the next', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 2; i++) await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    expect((await a.verify()).failures).toEqual([]);
    a.clock.advance(60_000);
    // The next run's state names no such file: its digest leaves it out.
    await appendDigestLeavingOut(a, 'w-next');
    const next = await a.verify();
    expect(next.weekly.mode).toBe('incremental');
    expect(next.failures).toContainEqual(expect.objectContaining({ kind: 'unlisted', object: SNAPSHOT }));
  });

  it('a file no digest lists that was written before the newest digest is a failure, as before', async () => {
    const a = new SimulatedArchive(false);
    await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    a.clock.advance(60_000);
    // A run whose state names no such file: its digest leaves the file out (planted, or foreign).
    await appendDigestLeavingOut(a, 'w-after');
    const r = await verifyArchive(
      { objects: a.store, clock: a.clock },
      { windowDays: 60, awaitNewestDigest: true },
    );
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'unlisted', object: SNAPSHOT }));
    expect(r.awaitingDigest).toBeUndefined();
  });
});

/** The full verify job's steps over the archive, as the state machine runs them: plan, each item, merge. */
async function verifyJob(a: SimulatedArchive, jobId: string) {
  const deps = { objects: a.store, clock: a.clock };
  const plan = await planVerifyJob(deps, jobId);
  for (const item of await mapJobObjects.items(a.store, plan.itemsKey, verifyJobItemSchema))
    await verifyJobItem(deps, plan, item);
  return mergeVerifyJob(deps, jobId);
}

describe('the full verify job over a file published before the digest that lists it', () => {
  const SNAPSHOT = 'history/dt=2024-01-15/20240115T205500Z-r9-0001.parquet';

  it('sets it aside, not a failure, and says so; after the next run the next job accounts for it', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 2; i++) await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    const job = await verifyJob(a, 'between-runs');
    expect(job.failures).toEqual([]);
    expect(job.ok).toBe(true);
    expect(job.awaitingDigest).toEqual([SNAPSHOT]);
    expect(describeFullVerify(job)).toContain(
      '1 file(s) written after the newest digest, for the next check',
    );
    await a.runWeek();
    const next = await verifyJob(a, 'after-the-run');
    expect(next.failures).toEqual([]);
    expect(next.awaitingDigest).toEqual([]);
  });

  it('names one no digest lists that was written before the newest digest', async () => {
    const a = new SimulatedArchive(false);
    for (let i = 0; i < 2; i++) await a.runWeek();
    a.clock.advance(60_000);
    await a.store.put(SNAPSHOT, await parquetOf([101, 102]));
    a.clock.advance(60_000);
    await appendDigestLeavingOut(a, 'w-after');
    const job = await verifyJob(a, 'planted');
    expect(job.ok).toBe(false);
    expect(job.failures).toContainEqual(expect.objectContaining({ kind: 'unlisted', object: SNAPSHOT }));
    expect(job.awaitingDigest).toEqual([]);
  });
});

describe('verifyWeekly over a simulated year of weeks', () => {
  it.each([
    ['S3 keeps SHA-256 checksums', true],
    ['the store keeps none (every old file read)', false],
  ])(
    'checks every file at least once in every rotation period, new work in full the week it is written (%s)',
    async (_name, checksums) => {
      const a = await twoYearsOld(checksums);
      const lastChecked = new Map<string, number>(a.dataFiles().map((f) => [f, 0]));
      for (let w = 1; w <= 52; w++) {
        await a.runWeek();
        const r = await a.verify();
        expect(r.failures, `week ${w}`).toEqual([]);
        expect(r.weekly.mode).toBe('incremental');
        for (const f of r.checked) if (lastChecked.has(f) || a.writtenIn.has(f)) lastChecked.set(f, w);
        // Written this week: checked this week.
        for (const [f, week] of a.writtenIn) if (week === a.week) expect(r.checked.has(f), f).toBe(true);
        // Every file: checked within the last PERIOD weeks.
        for (const [f, at] of lastChecked) expect(w - at, `${f} in week ${w}`).toBeLessThanOrEqual(PERIOD);
        if (checksums) expect(r.weekly.rotation.read).toBe(0);
        else expect(r.weekly.rotation.byChecksum).toBe(0);
      }
    },
    120_000,
  );

  it('reports a changed byte in a file written two years ago within one period, even with its date kept', async () => {
    for (const checksums of [true, false]) {
      const a = await twoYearsOld(checksums);
      const old = [...a.writtenIn].find(([f, week]) => week === 1 && f.endsWith('.parquet'))?.[0] as string;
      await a.store.tamper(old, flipByte100, true);
      const reportedIn = await a.weekReportingChanged(old);
      expect(reportedIn, `checksums: ${checksums}`).toBeDefined();
    }
  });

  it('reports a file rewritten two years after it was written the same week, by the store’s date', async () => {
    const a = await twoYearsOld(true);
    const old = a.dataFiles()[0] as string;
    await a.runWeek();
    await a.store.tamper(old, flipByte100, false);
    const r = await a.verify();
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'unlisted', object: old }));
  });

  it('reports a changed byte in a file written this week by this week’s check', async () => {
    const a = await twoYearsOld(true);
    const fresh = await a.weekWithChangedFile();
    const r = await a.verify();
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'hash', object: fresh }));
    // Until it is dealt with, the verified head stays: next week reports it again.
    await a.runWeek();
    const again = await a.verify();
    expect(again.failures).toContainEqual(expect.objectContaining({ kind: 'hash', object: fresh }));
  });

  it('reports a planted file and a removed one in the week they happen', async () => {
    const a = await twoYearsOld(true);
    await a.runWeek();
    await a.store.put('findings/dt=2024-01-02/planted.parquet', parquet);
    await a.store.remove(a.dataFiles()[3] as string);
    const r = await a.verify();
    expect(r.failures).toContainEqual(
      expect.objectContaining({ kind: 'unlisted', object: 'findings/dt=2024-01-02/planted.parquet' }),
    );
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'missing-file' }));
  });

  it('reports a rewritten verified head and a stray key under digests/', async () => {
    const a = await twoYearsOld(true);
    const head = a.progress?.head.key as string;
    await a.store.tamper(
      head,
      (b) => new TextEncoder().encode(new TextDecoder().decode(b).replace('"w104"', '"w1o4"')),
      true,
    );
    await a.runWeek();
    await a.store.put(`${digestKeys.prefix}notes.txt`, 'x');
    const r = await a.verify();
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'chain', object: head }));
    expect(r.failures).toContainEqual(
      expect.objectContaining({ kind: 'unlisted', object: 'digests/notes.txt' }),
    );
  });

  it('reads in full only the week’s new files, at nine weeks as at two years, when the store keeps checksums', async () => {
    const bytesAt = async (weeks: number) => {
      const a = new SimulatedArchive(true);
      for (let i = 0; i < weeks; i++) await a.runWeek();
      await a.verify();
      await a.runWeek();
      const r = await a.verify();
      return [...r.checked].filter((k) => !k.startsWith('digests/')).length - r.weekly.rotation.byChecksum;
    };
    // Files read in full (not by checksum): the week's new files only, at 9 weeks as at two years.
    expect(await bytesAt(104)).toBe(await bytesAt(9));
  });
});

describe('verifyWeekly with store-side checksum jobs (S3 Batch Operations Compute checksum)', () => {
  it('has every file hashed by the store at least once in every rotation period, new work read in full the week it is written', async () => {
    const a = await twoYearsOld(false, true);
    const lastChecked = new Map<string, number>(a.dataFiles().map((f) => [f, 0]));
    const weekStarted = a.week;
    for (let w = 1; w <= 52; w++) {
      await a.runWeek();
      const r = await a.verify();
      expect(r.failures, `week ${w}`).toEqual([]);
      expect(r.weekly.jobs?.submitted.map((j) => j.kind)).toContain('new');
      for (const f of r.checked) if (a.writtenIn.has(f)) lastChecked.set(f, w);
      for (const [f, week] of a.writtenIn) if (week === a.week) expect(r.checked.has(f), f).toBe(true);
      const judged = await a.betweenWeeks();
      expect(
        judged.every((v) => v.ok),
        `week ${w}`,
      ).toBe(true);
      for (const [f, week] of a.hashedIn) if (week === a.week && lastChecked.has(f)) lastChecked.set(f, w);
      for (const [f, at] of lastChecked) expect(w - at, `${f} in week ${w}`).toBeLessThanOrEqual(PERIOD);
    }
    expect(a.week - weekStarted).toBe(52);
  }, 240_000);

  it('reports a changed byte in a file written two years ago within one period, its date kept', async () => {
    const a = await twoYearsOld(false, true);
    const old = [...a.writtenIn].find(([f, week]) => week === 1 && f.endsWith('.parquet'))?.[0] as string;
    await a.store.tamper(old, flipByte100, true);
    expect(await a.weekReportingChanged(old)).toBeDefined();
  }, 240_000);

  it('reports a changed byte in a file written this week by this week’s check', async () => {
    const a = await twoYearsOld(false, true);
    const fresh = await a.weekWithChangedFile();
    const r = await a.verify();
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'hash', object: fresh }));
  });

  it('reports a planted object and a replaced file by the next week’s check', async () => {
    const a = await twoYearsOld(false, true);
    const replaced = a.dataFiles().find((f) => f.endsWith('.parquet')) as string;
    await a.runWeek();
    await a.store.put(`${digestKeys.prefix}notes.txt`, 'x');
    await a.store.tamper(replaced, flipByte100, false);
    await a.runWeek();
    expect((await a.verify()).failures).toEqual([]);
    await a.betweenWeeks();
    await a.runWeek();
    const r = await a.verify();
    expect(r.failures).toContainEqual(
      expect.objectContaining({ kind: 'unlisted', object: 'digests/notes.txt' }),
    );
    expect(r.failures).toContainEqual(expect.objectContaining({ kind: 'hash', object: replaced }));
  });

  it('sends the same requests and reads the same bytes at two years as at nine weeks', async () => {
    const weekAt = async (weeks: number) => {
      const a = new SimulatedArchive(false, true);
      for (let i = 0; i < weeks; i++) await a.runWeek();
      await a.verify();
      await a.runWeek();
      await a.verify();
      await a.betweenWeeks();
      await a.runWeek();
      const counting = countingObjectStore(a.store);
      const r = await verifyWeekly(
        { objects: counting.objects, clock: a.clock, jobs: a.jobs as ChecksumJobsStandIn },
        { windowDays: 60, periodWeeks: PERIOD, ...(a.progress ? { progress: a.progress } : {}) },
      );
      expect(r.failures).toEqual([]);
      return counting.counts;
    };
    const young = await weekAt(9);
    const old = await weekAt(104);
    expect(old.byMethod).toEqual(young.byMethod);
    // Bytes: the same files; digests a few characters longer (bigger sequence numbers and run ids).
    expect(old.bytesRead / young.bytesRead).toBeLessThan(1.01);
  }, 240_000);

  it('takes the jobs on without a full check when they become available, and moves on with them', async () => {
    const a = await twoYearsOld(true);
    await a.runWeek();
    // The same archive and progress, now with the jobs (a stack that gained the role).
    const jobs = new ChecksumJobsStandIn(a.store);
    const first = await verifyWeekly(
      { objects: a.store, clock: a.clock, jobs },
      { windowDays: 60, periodWeeks: PERIOD, ...(a.progress ? { progress: a.progress } : {}) },
    );
    expect(first.weekly.mode).toBe('incremental');
    expect(first.failures).toEqual([]);
    const checksums = first.weekly.progress.checksums;
    expect(Object.values(checksums?.weeks ?? {}).reduce((n, w) => n + w.count, 0)).toBeGreaterThan(2 * 105);
    await a.runWeek();
    a.clock.advance(3_600_000);
    const second = await verifyWeekly(
      { objects: a.store, clock: a.clock, jobs },
      { windowDays: 60, periodWeeks: PERIOD, progress: first.weekly.progress },
    );
    expect(second.failures).toEqual([]);
    expect(second.weekly.jobs?.submitted.map((j) => j.kind).sort()).toEqual(['new', 'rotation']);
  });
});

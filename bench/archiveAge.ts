import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startS3rver } from '../devkit/startS3rver.ts';
import { median } from './median.ts';

/** One steady-state run, as `bench/archiveAgeChild.ts run` measures it. */
export interface AgeRun {
  requests: number;
  /** Requests by store method (in a summary: of the first day's run). */
  byMethod: Record<string, number>;
  bytesRead: number;
  seconds: number;
  /** User + system CPU seconds of the measured work (beside wall time: what waiting on the disk is not). */
  cpuSeconds?: number;
  peakRssMiB: number;
}

export interface AgeStoreResult {
  store: 'file' | 's3';
  /** Files and digests generated for the old archive, and how long preparing it took. */
  generated: { days: number; files: number; digests: number };
  /** Median of the runs (one a day, same days at both ages); peak RSS is the highest. */
  young: AgeRun;
  old: AgeRun;
  /** `verify` of the whole old archive, in its own process. */
  verify: { seconds: number; peakRssMiB: number; ok: boolean; files: number };
  /** The weekly verify after the runs, at each age (the full check before them set its baseline). */
  weekly?: { young: WeeklyRun; old: WeeklyRun };
  /**
   * Judging the reports of the weekly verify's checksum jobs, once the store ran them (apart from the
   * weekly verify, when a report arrives): it reads one row an object of the week's rotation share.
   */
  judge?: { young: JudgeRun; old: JudgeRun };
}

/** One weekly verify, measured as a run is, with what it checked. */
export interface WeeklyRun extends AgeRun {
  failures: string[];
  weekly: {
    newDigests: number;
    newFiles: number;
    rotation: { from: number; to: number; files: number; byChecksum: number; read: number };
  };
}

/** One judging of checksum reports, measured as a run is. */
export interface JudgeRun extends AgeRun {
  judged: { kind: 'new' | 'rotation'; objects: number; ok: boolean; failures: number }[];
}

export interface ArchiveAgeResult {
  youngDays: number;
  oldDays: number;
  runs: number;
  /** Weekly verifies measured at each age (their figures are medians of these). */
  weeklyRuns?: number;
  maxRatio: number;
  stores: AgeStoreResult[];
  measuredAt?: string;
}

const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));
const child = fileURLToPath(new URL('./archiveAgeChild.ts', import.meta.url));

/**
 * Flushes what earlier phases left in the page cache before the next phase: a measured `fsync` would
 * otherwise wait for them (ext4 commits its journal with them), and the old archive's setup writes far more
 * than the young one's, so its measured phases would wait longer for work that is not theirs.
 */
async function flushWrites(): Promise<void> {
  await promisify(execFile)('sync').catch(() => undefined);
}

async function phase(args: string[], day?: number): Promise<Record<string, unknown>> {
  if (args[0] !== 'prepare') await flushWrites();
  const { stdout } = await promisify(execFile)(process.execPath, [runTs, child, ...args], {
    env: { ...process.env, ...(day === undefined ? {} : { AGE_RUN_DAY: String(day) }) },
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(line) as Record<string, unknown>;
}

function summarize(runs: AgeRun[]): AgeRun {
  return {
    requests: median(runs.map((r) => r.requests)),
    byMethod: runs[0]?.byMethod ?? {},
    bytesRead: median(runs.map((r) => r.bytesRead)),
    seconds: Math.round(median(runs.map((r) => r.seconds)) * 1000) / 1000,
    ...(runs.every((r) => r.cpuSeconds !== undefined)
      ? { cpuSeconds: Math.round(median(runs.map((r) => r.cpuSeconds as number)) * 1000) / 1000 }
      : {}),
    peakRssMiB: Math.round(Math.max(...runs.map((r) => r.peakRssMiB)) * 10) / 10,
  };
}

/**
 * The "archive age" case: for the file store and an S3-compatible server (s3rver, in this process), an
 * archive 60 days old and one `oldDays` old are prepared (`ageArchive`: as the stack would leave them,
 * not by running a run a day), then the same steady-state runs (one a day, `runs` days, alternating) are
 * measured on both, each in a fresh process, and verify is timed on the old one. Target: requests, bytes
 * read, wall time and peak RSS of the old archive's run each ≤ `maxRatio` × the young one's.
 */
export async function archiveAge(
  quick: boolean,
  only: readonly ('file' | 's3')[] = ['file', 's3'],
): Promise<ArchiveAgeResult> {
  const youngDays = 60;
  const oldDays = quick ? 240 : 3 * 365;
  const runs = quick ? 1 : 3;
  /** Weekly verifies measured at each age: its wall time is a fraction of a second, so five for a median. */
  const weeklyRuns = quick ? 1 : 5;
  const stores: AgeStoreResult[] = [];
  for (const store of only) {
    const s3 = store === 's3' ? await startS3rver('bench-archive') : undefined;
    const dirs = {
      young: mkdtempSync(join(tmpdir(), 'ta-age-young-')),
      old: mkdtempSync(join(tmpdir(), 'ta-age-old-')),
    };
    try {
      const args = (p: string, age: number, dir: string) => [
        p,
        store,
        String(age),
        dir,
        ...(s3 ? [s3.endpoint, s3.bucket] : []),
      ];
      await phase(args('prepare', youngDays, dirs.young));
      const prepared = await phase(args('prepare', oldDays, dirs.old));
      // The full check: timed on the old archive; on both, the baseline of the weekly verify.
      await phase(args('verify', youngDays, dirs.young));
      const verify = await phase(args('verify', oldDays, dirs.old));
      const measured = { young: [] as AgeRun[], old: [] as AgeRun[] };
      for (let day = 2; day < 2 + runs; day++) {
        measured.old.push((await phase(args('run', oldDays, dirs.old), day)) as unknown as AgeRun);
        measured.young.push((await phase(args('run', youngDays, dirs.young), day)) as unknown as AgeRun);
      }
      // The weekly verify, measured `weeklyRuns` times from the same place (its jobs are idempotent), the
      // age that goes first alternating; a figure is the median.
      const weeklies = { young: [] as WeeklyRun[], old: [] as WeeklyRun[] };
      const weeklyAt = async (age: 'young' | 'old') =>
        weeklies[age].push(
          (await phase(
            args('weekly', age === 'old' ? oldDays : youngDays, dirs[age]),
            2 + runs,
          )) as unknown as WeeklyRun,
        );
      for (let i = 0; i < weeklyRuns; i++) {
        for (const age of i % 2 === 0 ? (['old', 'young'] as const) : (['young', 'old'] as const))
          await weeklyAt(age);
      }
      const weekly = {
        young: { ...(weeklies.young[0] as WeeklyRun), ...summarize(weeklies.young) },
        old: { ...(weeklies.old[0] as WeeklyRun), ...summarize(weeklies.old) },
      };
      const judge = {
        young: (await phase(args('judge', youngDays, dirs.young), 3 + runs)) as unknown as JudgeRun,
        old: (await phase(args('judge', oldDays, dirs.old), 3 + runs)) as unknown as JudgeRun,
      };
      stores.push({
        store,
        generated: prepared.generated as AgeStoreResult['generated'],
        young: summarize(measured.young),
        old: summarize(measured.old),
        verify: {
          seconds: Math.round((verify.seconds as number) * 100) / 100,
          peakRssMiB: Math.round((verify.peakRssMiB as number) * 10) / 10,
          ok: verify.ok as boolean,
          files: verify.files as number,
        },
        weekly,
        judge,
      });
    } finally {
      await s3?.close();
      rmSync(dirs.young, { recursive: true, force: true });
      rmSync(dirs.old, { recursive: true, force: true });
    }
  }
  return { youngDays, oldDays, runs, weeklyRuns, maxRatio: 1.1, stores };
}

/** Ratios (old ÷ young) of the four measured figures of a run (or, with `weekly`, of the weekly verify). */
export function ageRatios(
  r: AgeStoreResult,
  which: 'run' | 'weekly' = 'run',
): Record<'requests' | 'bytesRead' | 'seconds' | 'peakRssMiB', number> {
  const pair = which === 'run' ? r : r.weekly;
  if (!pair) throw new Error(`no weekly verify was measured for the ${r.store} store`);
  const { young, old } = pair;
  const ratio = (a: number, b: number) =>
    b === 0 ? (a === 0 ? 1 : Number.POSITIVE_INFINITY) : Math.round((a / b) * 100) / 100;
  return {
    requests: ratio(old.requests, young.requests),
    bytesRead: ratio(old.bytesRead, young.bytesRead),
    seconds: ratio(old.seconds, young.seconds),
    peakRssMiB: ratio(old.peakRssMiB, young.peakRssMiB),
  };
}

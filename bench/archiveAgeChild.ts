/**
 * One phase of an "archive age" measurement in its own process (`bench/archiveAge.ts` runs them):
 * `run-ts bench/archiveAgeChild.ts <prepare|run|verify|weekly|judge> <file|s3> <ageDays> <dir> [s3 endpoint] [bucket]`,
 * the state (and the file store) kept in `<dir>` between phases, so the measured run and verify each start
 * in a fresh process. A real run fills a
 * 60-day window from a scripted upstream into the store (a file folder, or the S3-compatible server at
 * the endpoint) with an embedded DynamoDB-compatible state; `ageArchive` makes the archive `ageDays` old
 * as the stack would have left it (a history file and 24 active files a day, manifests, sealed days, a
 * digest a day); one run settles; then the next day's steady run is measured through a counting store:
 * requests, bytes read, wall time and peak RSS (sampled). `verify` times the full check (the first weekly
 * verify), `weekly` measures the next weekly verify (after the runs) the same way as a run, with its
 * checksum jobs submitted to the local stand-in of S3 Batch Operations, and `judge` lets the stand-in run
 * them (S3's work, not measured) and measures the judging of their reports (`checkChecksumReports`).
 * Prints one JSON line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { ChecksumJobsStandIn } from '../devkit/checksumJobsStandIn.ts';
import { countingObjectStore } from '../devkit/countingObjectStore.ts';
import { startLocalDynamo } from '../devkit/localDynamo.ts';
import { dayOfRecords, ScriptedUpstream } from '../devkit/scriptedUpstream.ts';
import { localDynamoClient } from '../devkit/startDynalite.ts';
import { s3rverClient } from '../devkit/startS3rver.ts';
import { agedArchive } from '../devkit/syntheticArchive.ts';
import { archiveOptionsFromConfig } from '../lib/archive/config/archiveOptionsFromConfig.ts';
import { loadConfig } from '../lib/archive/config/loadConfig.ts';
import { digestKeys } from '../lib/archive/digest/digestKeys.ts';
import { ed25519Signer } from '../lib/archive/digest/ed25519Signer.ts';
import { readDigestChain } from '../lib/archive/digest/readDigestChain.ts';
import { runArchive } from '../lib/archive/run/runArchive.ts';
import type { ArchiveDeps, ArchiveOptions } from '../lib/archive/run/runTypes.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/archive/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../lib/archive/store/s3ObjectStore.ts';
import { ManualClock } from '../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/foundation/clock/day.ts';
import { silentLogger } from '../lib/foundation/log/logger.ts';
import { relieveHeap } from '../lib/foundation/process/relieveHeap.ts';
import { checkChecksumReports } from '../lib/integrity/verify/checkChecksumReport.ts';
import { verifyWeekly } from '../lib/integrity/verify/verifyWeekly.ts';
import { checksumKeepingStore } from './checksumKeepingStore.ts';
import { cpuSecondsSince } from './cpuSeconds.ts';

const [phase = 'run', store = 'file', ageArg = '60', dir = '', endpoint, bucket = 'bench-archive'] =
  process.argv.slice(2);
const ageDays = Number(ageArg);
const START = '2026-11-20T06:00:00.000Z';
/** About the default emulator dataset's records per day. */
const RECORDS_PER_DAY = 290;

/** The default settings, as a local run has them. */
const OPTIONS: ArchiveOptions = archiveOptionsFromConfig(
  loadConfig({ env: { ARCHIVE_DEST: 'file://./archive', TUNNEL_API_KEY: 'bench' } }),
  { leaseTtlMs: 600_000 },
);

/** Wall and CPU seconds of `work`, and peak RSS (MiB) while it runs, sampled every 5 ms. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; cpuSeconds: number; peakRssMiB: number }> {
  relieveHeap();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      value,
      seconds: (performance.now() - t0) / 1000,
      cpuSeconds: cpuSecondsSince(cpu0),
      peakRssMiB: peak / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Dates every object of the file store as the stack would have: each file and digest at the time its
 * digest was written, the key files at the first digest's (the generator writes them all today). The
 * weekly verify's checksum jobs cover the store's times, so the rotation has its years of weeks.
 */
async function dateAsWritten(objects: ObjectStore, root: string): Promise<void> {
  const chain = await readDigestChain(objects);
  const at = (key: string, when: Date) => utimes(join(root, key), when, when);
  const first = chain.entries[0]?.digest?.createdAt;
  if (first)
    for (const k of [digestKeys.publicKeyPem, digestKeys.publicKeyInfo, digestKeys.keyCheck])
      await at(k, new Date(first)).catch(() => {});
  for (const e of chain.entries) {
    const when = new Date(e.digest?.createdAt ?? Date.now());
    for (const f of e.digest?.files ?? []) await at(f.key, when);
    await at(e.key, when);
  }
}

/** Saves the checksums the S3 wrapper kept, whatever the phase's outcome. */
let saveChecksums = () => {};
// The embedded state server only where the phase uses the state (a run): the verify phases never do, and
// a server in the same process would measure its own work (its store grows with the archive) with theirs.
const withState = phase === 'prepare' || phase === 'run';
const dynamo = withState ? await startLocalDynamo({ dir: join(dir, 'state') }) : undefined;
const client = dynamo ? localDynamoClient(dynamo.endpoint) : undefined;
try {
  if (client) await ensureStateTable(client, 'state');
  const state = client
    ? createDynamoStateStore({ client, table: 'state' })
    : (undefined as unknown as ArchiveDeps['state']);
  const clock = new ManualClock(START);
  const today = toDay(clock.now());
  const days = new Map<Day, unknown[]>();
  let n = 0;
  for (const d of dayRange(addDays(today, -59), addDays(today, 2))) {
    days.set(d, dayOfRecords(d, RECORDS_PER_DAY, n));
    n += RECORDS_PER_DAY;
  }
  // On S3 every write now carries its SHA-256, which S3 keeps (s3rver does not: the wrapper keeps it);
  // the file store keeps none, so the weekly verify reads old files there.
  const kept =
    store === 's3'
      ? checksumKeepingStore(
          createS3ObjectStore({ client: s3rverClient(endpoint as string), bucket, prefix: `age-${ageDays}` }),
          join(dir, 'checksums.json'),
        )
      : undefined;
  if (kept) saveChecksums = kept.save;
  const inner = kept?.objects ?? createFileObjectStore(join(dir, 'archive'));
  const progressFile = join(dir, 'verify-progress.json');
  const counting = countingObjectStore(inner);
  const keyFile = join(dir, 'signing-key.pem');
  if (phase === 'prepare') {
    writeFileSync(
      keyFile,
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
  }
  const signer = ed25519Signer(readFileSync(keyFile, 'utf8'));
  const deps: ArchiveDeps = {
    api: new ScriptedUpstream({ clock, days, reshuffle: false }),
    objects: counting.objects,
    state,
    clock,
    logger: process.env.AGE_TRACE
      ? (() => {
          const t0 = performance.now();
          const line = (m: string) => console.error(`${((performance.now() - t0) / 1000).toFixed(2)} ${m}`);
          return { debug: line, info: line, warn: line, error: line };
        })()
      : silentLogger,
    tokenKey: new Uint8Array(32).fill(7),
    signer,
  };
  if (phase === 'prepare') {
    // A real run fills the window, the archive is aged, and one more run settles on it.
    const t0 = performance.now();
    const generated = await agedArchive(deps, clock, OPTIONS, ageDays);
    if (store === 'file') await dateAsWritten(inner, join(dir, 'archive'));
    console.log(JSON.stringify({ generated, setupSeconds: (performance.now() - t0) / 1000 }));
  } else if (phase === 'run') {
    // Runs are measured on consecutive days (AGE_RUN_DAY: 2, 3, ...): the same work at any age.
    clock.advance(Number(process.env.AGE_RUN_DAY ?? 2) * 86_400_000);
    const run = await measured(() => runArchive(deps, OPTIONS));
    const counts = counting.counts;
    console.log(
      JSON.stringify({
        requests: counts.requests,
        byMethod: counts.byMethod,
        bytesRead: counts.bytesRead,
        seconds: run.seconds,
        peakRssMiB: run.peakRssMiB,
        recordsNew: run.value.recordsNew,
        reconciled: run.value.rebuilt !== undefined,
      }),
    );
  } else if (phase === 'verify') {
    // The full check (the first weekly verify: everything), timed; it leaves the weekly verify's baseline.
    clock.advance(86_400_000);
    const v = await measured(() =>
      verifyWeekly({ objects: inner, clock, jobs: new ChecksumJobsStandIn(inner) }, { windowDays: 60 }),
    );
    writeFileSync(progressFile, JSON.stringify(v.value.weekly.progress));
    console.log(
      JSON.stringify({
        seconds: v.seconds,
        peakRssMiB: v.peakRssMiB,
        ok: v.value.ok,
        files: v.value.files,
        failures: v.value.failures.length,
      }),
    );
  } else if (phase === 'weekly') {
    // The next weekly verify, after the measured runs: their work in full, and this week's checksum jobs.
    clock.advance(Number(process.env.AGE_RUN_DAY ?? 7) * 86_400_000);
    const progress = JSON.parse(readFileSync(progressFile, 'utf8'));
    const v = await measured(() =>
      verifyWeekly(
        { objects: counting.objects, clock, jobs: new ChecksumJobsStandIn(counting.objects) },
        { windowDays: 60, progress },
      ),
    );
    writeFileSync(`${progressFile}.next`, JSON.stringify(v.value.weekly.progress));
    console.log(
      JSON.stringify({
        requests: counting.counts.requests,
        byMethod: counting.counts.byMethod,
        bytesRead: counting.counts.bytesRead,
        seconds: v.seconds,
        cpuSeconds: v.cpuSeconds,
        peakRssMiB: v.peakRssMiB,
        failures: v.value.failures.map((f) => f.message).slice(0, 3),
        weekly: { ...v.value.weekly, progress: undefined },
      }),
    );
  } else {
    // Between weeks: the store runs the jobs (S3's work, not measured), then their reports are judged.
    const jobs = new ChecksumJobsStandIn(inner);
    await jobs.runPending();
    clock.advance(Number(process.env.AGE_RUN_DAY ?? 7) * 86_400_000);
    const progress = JSON.parse(readFileSync(`${progressFile}.next`, 'utf8'));
    const judge = await measured(() =>
      checkChecksumReports(
        { objects: counting.objects, jobs: new ChecksumJobsStandIn(counting.objects) },
        progress.checksums,
        clock.now(),
      ),
    );
    console.log(
      JSON.stringify({
        requests: counting.counts.requests,
        byMethod: counting.counts.byMethod,
        bytesRead: counting.counts.bytesRead,
        seconds: judge.seconds,
        peakRssMiB: judge.peakRssMiB,
        judged: judge.value.judged.map(({ failures, ...v }) => ({ ...v, failures: failures.length })),
      }),
    );
  }
} finally {
  saveChecksums();
  client?.destroy();
  await dynamo?.close();
}

/**
 * One phase of an "archive age" measurement in its own process (`bench/archiveAge.ts` runs them):
 * `run-ts bench/archiveAgeChild.ts <prepare|run|verify> <file|s3> <ageDays> <dir> [s3 endpoint] [bucket]`,
 * the state (and the file store) kept in `<dir>` between phases, so the measured run and verify each start
 * in a fresh process. A real run fills a
 * 60-day window from a scripted upstream into the store (a file folder, or the S3-compatible server at
 * the endpoint) with an embedded DynamoDB-compatible state; `ageArchive` makes the archive `ageDays` old
 * as the stack would have left it (a history file and 24 active files a day, manifests, sealed days, a
 * digest a day); one run settles; then the next day's steady run is measured through a counting store:
 * requests, bytes read, wall time and peak RSS (sampled). `verify` times verify of the whole archive.
 * Prints one JSON line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../lib/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/clock/day.ts';
import { archiveOptionsFromConfig } from '../lib/config/archiveOptionsFromConfig.ts';
import { loadConfig } from '../lib/config/loadConfig.ts';
import { ed25519Signer } from '../lib/digest/ed25519Signer.ts';
import { silentLogger } from '../lib/log/logger.ts';
import { relieveHeap } from '../lib/process/relieveHeap.ts';
import { runArchive } from '../lib/run/runArchive.ts';
import type { ArchiveDeps, ArchiveOptions } from '../lib/run/runTypes.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../lib/store/fileObjectStore.ts';
import { createS3ObjectStore } from '../lib/store/s3ObjectStore.ts';
import { verifyArchive } from '../lib/verify/verifyArchive.ts';
import { countingObjectStore } from '../test/support/countingObjectStore.ts';
import { startLocalDynamo } from '../test/support/localDynamo.ts';
import { dayOfRecords, ScriptedUpstream } from '../test/support/scriptedUpstream.ts';
import { localDynamoClient } from '../test/support/startDynalite.ts';
import { s3rverClient } from '../test/support/startS3rver.ts';
import { agedArchive } from '../test/support/syntheticArchive.ts';

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

/** Peak RSS (MiB) while `work` runs, sampled every 5 ms. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; peakRssMiB: number }> {
  relieveHeap();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, seconds: (performance.now() - t0) / 1000, peakRssMiB: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

const dynamo = await startLocalDynamo({ dir: join(dir, 'state') });
const client = localDynamoClient(dynamo.endpoint);
try {
  await ensureStateTable(client, 'state');
  const state = createDynamoStateStore({ client, table: 'state' });
  const clock = new ManualClock(START);
  const today = toDay(clock.now());
  const days = new Map<Day, unknown[]>();
  let n = 0;
  for (const d of dayRange(addDays(today, -59), addDays(today, 2))) {
    days.set(d, dayOfRecords(d, RECORDS_PER_DAY, n));
    n += RECORDS_PER_DAY;
  }
  const inner =
    store === 's3'
      ? createS3ObjectStore({ client: s3rverClient(endpoint as string), bucket, prefix: `age-${ageDays}` })
      : createFileObjectStore(join(dir, 'archive'));
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
  } else {
    clock.advance(2 * 86_400_000);
    const v = await measured(() => verifyArchive({ objects: inner, clock }, { windowDays: 60 }));
    console.log(
      JSON.stringify({
        seconds: v.seconds,
        peakRssMiB: v.peakRssMiB,
        ok: v.value.ok,
        files: v.value.files,
        failures: v.value.failures.length,
      }),
    );
  }
} finally {
  client.destroy();
  await dynamo.close();
}

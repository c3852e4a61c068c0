import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, expect } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import {
  EMULATOR_PAID_KEY,
  type EmulatorHandle,
  type EmulatorOptions,
  startEmulator,
} from '../../devkit/startEmulator.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import type { DatasetOptions } from '../../lib/archive/emulator/dataset.ts';
import type { FaultConfig } from '../../lib/archive/emulator/faults.ts';
import { readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import type { ArchiveDeps, ArchiveOptions } from '../../lib/archive/run/runTypes.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import {
  createTunnelApiClient,
  type TunnelApiClient,
} from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { type Clock, ManualClock } from '../../lib/foundation/clock/clock.ts';
import { type Day, dayRange } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

/** A small dataset so a simulated timeline of weeks runs in seconds; still multi-page with a 100-row cap. */
export const SMALL_DATASET: Partial<DatasetOptions> = {
  normalMin: 5,
  normalMax: 60,
  heavyMin: 300,
  heavyMax: 450,
};

/** Where a world's clock starts unless a test names another instant. */
export const SCENARIO_START = '2026-10-01T06:00:00.000Z';

/** The token key of every test run: ids in the archive are computed under it. */
export const TEST_TOKEN_KEY: Uint8Array = new Uint8Array(32).fill(7);

/** The digest signer of every test run (a fresh Ed25519 key per test process). */
export const TEST_SIGNER: DigestSigner = ed25519Signer(
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
);

export const TEST_OPTIONS: ArchiveOptions = {
  tokenPolicy: 'hash',
  pageSize: 2000,
  pageConcurrency: 2,
  maxPasses: 30,
  rescanAges: [1, 2, 3, 7, 14, 30, 45],
  maxPagesPerDay: 1000,
  windowDays: 60,
  rowGroupSize: 1000,
  leaseTtlMs: 60_000,
};

export interface World {
  emulator: EmulatorHandle;
  clock: ManualClock;
  api: TunnelApiClient;
  objects: ObjectStore;
  state: StateStore;
  s3?: S3rverHandle;
  dynamo: DynaliteHandle;
  dir: string;
  deps(): {
    api: TunnelApiClient;
    objects: ObjectStore;
    state: StateStore;
    clock: Clock;
    logger: typeof silentLogger;
    tokenKey: Uint8Array;
    signer: DigestSigner;
  };
  close(): Promise<void>;
}

/**
 * Worlds for the tests of a file: `open` starts one (as {@link startWorld}), and every world a test opened
 * is closed after it.
 */
export function worldPerTest(): { open: typeof startWorld } {
  const opened: World[] = [];
  afterEach(async () => {
    for (const w of opened.splice(0)) await w.close();
  });
  return {
    open: async (opts) => {
      const w = await startWorld(opts);
      opened.push(w);
      return w;
    },
  };
}

/**
 * Emulator + DynamoDB-compatible server + (file or S3-compatible) object store, all on 127.0.0.1.
 * By default the clock starts at {@link SCENARIO_START} and the archive is a file store.
 */
export async function startWorld(
  opts: {
    start?: string;
    store?: 'file' | 's3';
    faults?: Partial<FaultConfig>;
    dataset?: Partial<DatasetOptions>;
    maxPageSize?: number;
    seed?: number;
    /** Any other emulator option (stale totals, poison, a shorter window...). */
    emulator?: Partial<EmulatorOptions>;
  } = {},
): Promise<World> {
  const clock = new ManualClock(opts.start ?? SCENARIO_START);
  const emulator = await startEmulator({
    seed: opts.seed ?? 7,
    clock,
    maxPageSize: opts.maxPageSize ?? 100,
    dataset: opts.dataset ?? SMALL_DATASET,
    faults: opts.faults ?? {},
    ...opts.emulator,
  });
  const dir = await mkdtemp(join(tmpdir(), 'ta-engine-'));
  const dynamo = await startDynalite();
  const s3 = opts.store === 's3' ? await startS3rver() : undefined;
  const objects = s3
    ? createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'archive' })
    : createFileObjectStore(join(dir, 'archive'));
  const state = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
  const api = createTunnelApiClient({
    baseUrl: emulator.url,
    apiKey: EMULATOR_PAID_KEY,
    // The run's clock: records are validated against its "now" (no start later than now + 2 days).
    clock,
    retry: { baseDelayMs: 1, maxDelayMs: 20, maxAttempts: 12, budgetMs: 30_000 },
  });
  return {
    emulator,
    clock,
    api,
    objects,
    state,
    ...(s3 ? { s3 } : {}),
    dynamo,
    dir,
    deps: () => testDeps({ api, objects, state, clock }),
    close: async () => {
      await api.close();
      await emulator.close();
      await s3?.close();
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Record ids the upstream exposes for each day at `at`. */
export function truthIds(
  world: World,
  days: Day[],
  at?: Date,
  tokenKey: Uint8Array = TEST_TOKEN_KEY,
): Map<Day, Set<string>> {
  return new Map(
    days.map((d) => [d, new Set(world.emulator.truth(d, at).map((r) => recordId(r, tokenKey)))]),
  );
}

/** Every record id in `history/`, per partition, read back from the Parquet files; duplicates counted. */
export async function archivedIds(
  objects: ObjectStore,
): Promise<{ byDt: Map<Day, string[]>; total: number; distinct: number }> {
  const byDt = new Map<Day, string[]>();
  const all = new Set<string>();
  let total = 0;
  for await (const o of objects.list('history/')) {
    const dt = /dt=(\d{4}-\d{2}-\d{2})\//.exec(o.key)?.[1];
    if (!dt || !o.key.endsWith('.parquet')) continue;
    const ids = await readRecordIds((await objects.get(o.key)) as Uint8Array);
    byDt.set(dt, [...(byDt.get(dt) ?? []), ...ids]);
    for (const id of ids) all.add(id);
    total += ids.length;
  }
  return { byDt, total, distinct: all.size };
}

/** Asserts partition by partition that the archive holds exactly `expected`, no more, no less, no doubles. */
/** The archive holds exactly `truth`: every id once, none missing, none extra. */
export async function expectIdsExact(objects: ObjectStore, truth: ReadonlySet<string>): Promise<void> {
  const archive = await archivedIds(objects);
  expect(archive.total, 'nothing twice').toBe(archive.distinct);
  expect(new Set([...archive.byDt.values()].flat())).toEqual(truth);
}

export function diffArchive(byDt: Map<Day, string[]>, expected: Map<Day, Set<string>>): string[] {
  const problems: string[] = [];
  for (const [day, want] of expected) {
    const got = byDt.get(day) ?? [];
    const gotSet = new Set(got);
    if (gotSet.size !== got.length) problems.push(`${day}: ${got.length - gotSet.size} duplicates`);
    const missing = [...want].filter((id) => !gotSet.has(id)).length;
    const extra = [...gotSet].filter((id) => !want.has(id)).length;
    if (missing) problems.push(`${day}: ${missing} missing`);
    if (extra) problems.push(`${day}: ${extra} unexpected`);
  }
  return problems;
}

export function windowDays(today: Day, n = 60): Day[] {
  const start = new Date(Date.parse(`${today}T00:00:00Z`) - (n - 1) * 86_400_000).toISOString().slice(0, 10);
  return dayRange(start, today);
}

/** Runs SQL over a local archive folder with DuckDB (an independent Parquet reader). */
export async function duckdb(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create();
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Exactly once: no record id twice in `history/`, and every id the upstream exposes for `days` archived. */
export async function expectArchiveExact(
  world: World,
  objects: ObjectStore,
  days: Day[],
  tokenKey: Uint8Array = TEST_TOKEN_KEY,
): Promise<void> {
  const archive = await archivedIds(objects);
  expect(archive.total, 'no record archived twice').toBe(archive.distinct);
  expect(diffArchive(archive.byDt, truthIds(world, days, undefined, tokenKey))).toEqual([]);
}

/** A run's dependencies for tests: the given ports, a silent logger, and the test keys. */
export function testDeps<P extends Pick<ArchiveDeps, 'api' | 'objects' | 'state' | 'clock'>>(
  ports: P,
): P & Pick<ArchiveDeps, 'logger' | 'tokenKey' | 'signer'> {
  return { ...ports, logger: silentLogger, tokenKey: TEST_TOKEN_KEY, signer: TEST_SIGNER };
}

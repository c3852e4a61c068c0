/**
 * `npm run bench -- --only=fanout-2M`: how big an account the archiver serves. The work of a
 * page (validate, ids, map, encode, commit: all but the wait) is measured by running the fan-out's real
 * steps (plan, every page-range item, finish) in this process on a heavy day served without latency, by
 * the emulator, at a 100-row page cap. From it, the wall time AWS would take for a day of
 * 2M sessions at 150 ms a request is computed for map concurrencies 1, 4 and 16, and the largest day one
 * Lambda (14 minutes of work) and one orchestration (its 5-hour timeout, at the stack's `fanoutConcurrency`)
 * can walk in time. What the finish step's memory holds is not modelled here: `finish-union` measures it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalDynamo } from '../devkit/localDynamo.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../devkit/startEmulator.ts';
import { readStackSettings } from '../infra/stackSettings.ts';
import { systemClock } from '../lib/clock/clock.ts';
import { ed25519Signer } from '../lib/digest/ed25519Signer.ts';
import { fanoutItemSchema } from '../lib/fanout/fanoutTypes.ts';
import { finishFanout } from '../lib/fanout/finishFanout.ts';
import { planFanout } from '../lib/fanout/planFanout.ts';
import { walkFanoutItem } from '../lib/fanout/walkFanoutItem.ts';
import { silentLogger } from '../lib/log/logger.ts';
import type { ArchiveOptions } from '../lib/run/runTypes.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../lib/store/fileObjectStore.ts';
import { createTunnelApiClient } from '../lib/upstream/createTunnelApiClient.ts';
import { flatDayDataset } from './scaledDataset.ts';

/** The model's figures: a 2M-session day, 150 ms a request, pages capped at 100 rows. */
export const FANOUT_MODEL = {
  daySessions: 2_000_000,
  latencySeconds: 0.15,
  pageRows: 100,
  /** Requests in flight per worker (PAGE_CONCURRENCY's default). */
  pageConcurrency: 2,
  /** Pages of one map item (the stack's fanoutRangePages default). */
  rangePages: 500,
  concurrencies: [1, 4, 16],
  /** A Lambda's 15 minutes less the engine's reserves: the work one invocation may do. */
  lambdaWorkSeconds: 14 * 60,
  /** The state machine's timeout. */
  orchestrationSeconds: 5 * 3600,
} as const;

export interface FanoutFigures {
  /** What was measured: pages walked in ranges, their seconds, and the finish step's. */
  measured: { sessions: number; pages: number; items: number; walkSeconds: number; finishSeconds: number };
  /** Seconds of work per page (no latency), and per session for the finish step's union. */
  pageWorkSeconds: number;
  finishSecondsPerSession: number;
  /** Seconds per page of one worker: the wait (latency ÷ requests in flight) or the work, whichever is longer. */
  workerSecondsPerPage: number;
  /** Wall time (minutes) of a 2M-session day by map concurrency. */
  wallMinutes: { concurrency: number; minutes: number }[];
  /**
   * The largest day (sessions) walked in time within one Lambda, and within one orchestration's timeout at
   * `concurrency` (the stack's `fanoutConcurrency`). Time only: the finish step's memory, measured by
   * `finish-union`, bounds a fan-out day far lower.
   */
  largestDayOneLambda: number;
  largestDayFanoutByTime: number;
  concurrency: number;
}

/** Wall seconds of a day of `pages` pages at map concurrency `c` (plan and finish are one each). */
export function fanoutWallSeconds(
  pages: number,
  c: number,
  perPage: number,
  finishSeconds: number,
  itemOverheadSeconds: number,
): number {
  const items = Math.ceil(pages / FANOUT_MODEL.rangePages);
  const itemSeconds = FANOUT_MODEL.rangePages * perPage + itemOverheadSeconds;
  return FANOUT_MODEL.latencySeconds + Math.ceil(items / c) * itemSeconds + finishSeconds;
}

export async function fanoutSimulation(
  sessions: number,
  itemOverheadSeconds: number,
): Promise<FanoutFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'ta-fanout-bench-'));
  const emulator = await startEmulator({
    seed: 24,
    maxPageSize: FANOUT_MODEL.pageRows,
    windowDays: 3,
    faults: { stableOrder: true },
    dataset: { ...flatDayDataset(0), heavyEveryDays: 1, heavyMin: sessions, heavyMax: sessions },
  });
  const dynamo = await startLocalDynamo();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureStateTable(client, 'bench');
  const api = createTunnelApiClient({ baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY });
  try {
    const deps = {
      api,
      objects: createFileObjectStore(join(dir, 'archive')),
      state: createDynamoStateStore({ client, table: 'bench' }),
      clock: systemClock,
      logger: silentLogger,
      tokenKey: new Uint8Array(32).fill(7),
      signer: ed25519Signer(
        generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ),
    };
    const options: ArchiveOptions = {
      tokenPolicy: 'hash',
      pageSize: FANOUT_MODEL.pageRows,
      pageConcurrency: FANOUT_MODEL.pageConcurrency,
      maxPasses: 10,
      rescanAges: [1],
      maxPagesPerDay: 100_000,
      windowDays: 3,
      rowGroupSize: 10_000,
      leaseTtlMs: 3_600_000,
      tmpDir: dir,
    };
    const orchestrationId = 'bench';
    const plan = await planFanout(deps, options, { orchestrationId, rangePages: 50, leaseTtlMs: 3_600_000 });
    const items = fanoutItemSchema
      .array()
      .parse(JSON.parse(Buffer.from((await deps.objects.get(plan.itemsKey)) ?? []).toString()));
    const input = { orchestrationId, lease: plan.lease, windowDays: plan.windowDays };
    const t0 = performance.now();
    for (const item of items) await walkFanoutItem(deps, options, { ...input, item });
    const walkSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const summary = await finishFanout(deps, options, plan);
    const finishSeconds = (performance.now() - t1) / 1000;
    const pages = summary.days.reduce((a, d) => a + d.pages, 0);
    const seen = summary.days.reduce((a, d) => a + d.distinctSeen, 0);
    const pageWorkSeconds = walkSeconds / Math.max(1, pages);
    const finishSecondsPerSession = finishSeconds / Math.max(1, seen);
    const perPage = Math.max(FANOUT_MODEL.latencySeconds / FANOUT_MODEL.pageConcurrency, pageWorkSeconds);
    const dayPages = FANOUT_MODEL.daySessions / FANOUT_MODEL.pageRows;
    const finishAt = (s: number) => s * finishSecondsPerSession;
    const wallMinutes = FANOUT_MODEL.concurrencies.map((c) => ({
      concurrency: c,
      minutes: round(
        fanoutWallSeconds(dayPages, c, perPage, finishAt(FANOUT_MODEL.daySessions), itemOverheadSeconds) / 60,
      ),
    }));
    // One Lambda walks pages one request pair at a time: its 14 minutes of work bound the day.
    const largestDayOneLambda = Math.floor(FANOUT_MODEL.lambdaWorkSeconds / perPage) * FANOUT_MODEL.pageRows;
    // One orchestration at the stack's concurrency: the largest day whose wall time fits its timeout.
    const concurrency = readStackSettings(() => undefined).fanoutConcurrency;
    let byTime = 0;
    for (let s = 1_000_000; ; s += 1_000_000) {
      const wall = fanoutWallSeconds(
        s / FANOUT_MODEL.pageRows,
        concurrency,
        perPage,
        finishAt(s),
        itemOverheadSeconds,
      );
      if (wall > FANOUT_MODEL.orchestrationSeconds) break;
      byTime = s;
    }
    return {
      measured: {
        sessions: seen,
        pages,
        items: items.length,
        walkSeconds: round(walkSeconds),
        finishSeconds: round(finishSeconds),
      },
      pageWorkSeconds: round(pageWorkSeconds, 5),
      finishSecondsPerSession: round(finishSecondsPerSession, 8),
      workerSecondsPerPage: round(perPage, 5),
      wallMinutes,
      largestDayOneLambda,
      largestDayFanoutByTime: byTime,
      concurrency,
    };
  } finally {
    await api.close();
    client.destroy();
    await dynamo.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * `npm run bench -- --only=fanout-2M`: how big an account the archiver serves. The work of a
 * page (validate, ids, map, encode, commit: all but the wait) is measured by running the fan-out's real
 * steps (plan, every page-range item, finish) in this process on a heavy day served without latency, by
 * the emulator, at a 100-row page cap, with the settings the stack ships (`shippedSettings`: the fan-out
 * function's config as its template environment gives it, the plan's range pages; only the window is the
 * emulator's 3 days). From it, at the CPU share the function's memory buys, the wall time AWS would take for a
 * day of 2M sessions at 150 ms a request is computed for map concurrencies 1, 4 and 16, and the largest day one
 * archiver run (its timeout less its deadline reserve) and one orchestration (its timeout, at its map's
 * `MaxConcurrency`) can walk in time, or the page cap allows. What the finish step's memory holds is not
 * modelled here: `finish-union` measures it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalDynamo } from '../devkit/localDynamo.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../devkit/startEmulator.ts';
import { FULL_VCPU_MEMORY_MB } from '../infra/constructs/archiveFunction.ts';
import { archiveOptionsFromConfig } from '../lib/archive/config/archiveOptionsFromConfig.ts';
import { ed25519Signer } from '../lib/archive/digest/ed25519Signer.ts';
import { fixedClock } from '../lib/archive/emulator/emulatorClock.ts';
import { fanoutItemSchema } from '../lib/archive/fanout/fanoutTypes.ts';
import { finishFanout } from '../lib/archive/fanout/finishFanout.ts';
import { planFanout } from '../lib/archive/fanout/planFanout.ts';
import { walkFanoutItem } from '../lib/archive/fanout/walkFanoutItem.ts';
import type { ArchiveOptions } from '../lib/archive/run/runTypes.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/archive/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import { createTunnelApiClient } from '../lib/archive/upstream/createTunnelApiClient.ts';
import { type Clock, systemClock } from '../lib/foundation/clock/clock.ts';
import { silentLogger } from '../lib/foundation/log/logger.ts';
import { flatDayDataset } from './scaledDataset.ts';
import {
  type RecordedSettings,
  recordedSettings,
  type SettingOverrides,
  shippedSettings,
} from './shippedSettings.ts';

/**
 * The model's assumptions about the API (not settings of the stack, which `shippedSettings` reads): a
 * 2M-session day, 150 ms a request, pages capped at 100 rows whatever page size is asked.
 */
export const FANOUT_MODEL = {
  daySessions: 2_000_000,
  latencySeconds: 0.15,
  pageRows: 100,
  concurrencies: [1, 4, 16],
} as const;

/** The emulator's window: its 3 days, where the stack ships WINDOW_DAYS unset (60). */
const WINDOW_DAYS = 3;

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
  /**
   * The stack's settings the figures follow from, read from the synthesized template: the archiver's for the
   * one-run day, the fan-out function's and its machine's for the measured walk and the orchestration.
   */
  settings?: { oneRun: RecordedSettings; fanout: RecordedSettings };
  /** What the measurement set instead of the shipped value (the window of the emulator's days). */
  overrides?: SettingOverrides;
  /** The share of a core the functions' memory buys (memory ÷ 1769 MB, at most 1): work a page is divided by it. */
  cpuShare?: number;
  /** Sessions one pass's page cap allows at the echoed page rows, one run's and the fan-out's. */
  pageCapSessions?: { oneRun: number; fanout: number };
  /** The 1-minute load average before and after the measurement (2 cores): the work a page follows it. */
  load?: [number, number];
}

/** Wall seconds of a day of `pages` pages at map concurrency `c`, in items of `rangePages` (plan and finish are one each). */
export function fanoutWallSeconds(
  pages: number,
  c: number,
  perPage: number,
  finishSeconds: number,
  itemOverheadSeconds: number,
  rangePages: number,
): number {
  const items = Math.ceil(pages / rangePages);
  const itemSeconds = rangePages * perPage + itemOverheadSeconds;
  return FANOUT_MODEL.latencySeconds + Math.ceil(items / c) * itemSeconds + finishSeconds;
}

export async function fanoutSimulation(
  sessions: number,
  itemOverheadSeconds: number,
): Promise<FanoutFigures> {
  const loadBefore = loadavg()[0] ?? 0;
  const shipped = shippedSettings();
  const oneRun = recordedSettings(shipped, 'archiver', FANOUT_MODEL.pageRows);
  const fanout = recordedSettings(shipped, 'fanoutFunction', FANOUT_MODEL.pageRows);
  const machine = shipped.fanoutMachine;
  const dir = mkdtempSync(join(tmpdir(), 'ta-fanout-bench-'));
  // One instant for the emulator and the steps: no day grows while it is walked (a growing today would be
  // walked again, pass after pass, for as long as the walk takes).
  const at = Date.parse('2026-10-01T12:00:00.000Z');
  const clock: Clock = { now: () => new Date(at), sleep: systemClock.sleep };
  const emulator = await startEmulator({
    clock: fixedClock(at),
    seed: 24,
    maxPageSize: FANOUT_MODEL.pageRows,
    windowDays: WINDOW_DAYS,
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
      clock,
      logger: silentLogger,
      tokenKey: new Uint8Array(32).fill(7),
      signer: ed25519Signer(
        generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ),
    };
    // The fan-out function's config as its template environment gives it; only the window is the emulator's.
    const options: ArchiveOptions = {
      ...archiveOptionsFromConfig(shipped.configs.fanoutFunction, { tmpDir: dir }),
      windowDays: WINDOW_DAYS,
    };
    const orchestrationId = 'bench';
    const plan = await planFanout(deps, options, {
      orchestrationId,
      rangePages: machine.rangePages,
      leaseTtlMs: machine.timeoutSeconds * 1000,
    });
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
    // Measured on a whole core of this machine; a function gets the share its memory buys.
    const cpuShare = Math.min(1, fanout.memoryMb / FULL_VCPU_MEMORY_MB);
    const perPageOf = (s: RecordedSettings) =>
      Math.max(FANOUT_MODEL.latencySeconds / s.pageConcurrency, pageWorkSeconds / cpuShare);
    const perPage = perPageOf(fanout);
    const dayPages = FANOUT_MODEL.daySessions / FANOUT_MODEL.pageRows;
    const finishAt = (s: number) => (s * finishSecondsPerSession) / cpuShare;
    const wallMinutes = FANOUT_MODEL.concurrencies.map((c) => ({
      concurrency: c,
      minutes: round(
        fanoutWallSeconds(
          dayPages,
          c,
          perPage,
          finishAt(FANOUT_MODEL.daySessions),
          itemOverheadSeconds,
          machine.rangePages,
        ) / 60,
      ),
    }));
    // The sessions one pass's page cap allows (the cap counts the empty page that proves the end).
    const capSessions = (s: RecordedSettings) => (s.pageCap - 1) * s.pageRows;
    // One archiver run walks pages a request pair at a time until its timeout less its deadline reserve.
    const oneRunWorkSeconds = oneRun.timeoutSeconds - oneRun.deadlineReserveMs / 1000;
    const largestDayOneLambda = Math.min(
      Math.floor(oneRunWorkSeconds / perPageOf(oneRun)) * FANOUT_MODEL.pageRows,
      capSessions(oneRun),
    );
    // One orchestration at its map's concurrency: the largest day whose wall time fits its timeout, by time
    // alone (the page cap, `pageCapSessions.fanout`, and the finish step's memory bound it lower).
    const concurrency = machine.maxConcurrency;
    let byTime = 0;
    for (let s = 1_000_000; s <= 10_000_000_000; s += 1_000_000) {
      const wall = fanoutWallSeconds(
        s / FANOUT_MODEL.pageRows,
        concurrency,
        perPage,
        finishAt(s),
        itemOverheadSeconds,
        machine.rangePages,
      );
      if (wall > machine.timeoutSeconds) break;
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
      settings: { oneRun, fanout },
      overrides: { windowDays: WINDOW_DAYS },
      cpuShare: round(cpuShare, 4),
      pageCapSessions: { oneRun: capSessions(oneRun), fanout: capSessions(fanout) },
      load: [round(loadBefore), round(loadavg()[0] ?? 0)],
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

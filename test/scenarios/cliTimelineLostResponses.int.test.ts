import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliKeysDir, runCli } from '../../devkit/runCli.ts';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { windowStartOf } from '../../lib/archive/days/planDays.ts';
import { LOCAL_KEY_FILES } from '../../lib/archive/keys/loadLocalKeys.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { type DropResponseProxy, startDropResponseProxy } from '../support/dropResponseProxy.ts';
import { archivedIds, SMALL_DATASET } from '../support/engineKit.ts';

const START = Date.parse('2026-10-01T06:00:00.000Z');
let dir: string;
let clock: ManualClock;
let emulator: EmulatorHandle;
let dynamo: DynaliteHandle;
let proxy: DropResponseProxy;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-cli-drop-'));
  clock = new ManualClock(new Date(START));
  emulator = await startEmulator({ seed: 11, clock, maxPageSize: 100, dataset: SMALL_DATASET });
  dynamo = await startDynalite();
  proxy = await startDropResponseProxy({ target: dynamo.endpoint, dropRate: 0.1, seed: 5 });
});
afterAll(async () => {
  await proxy.close();
  await dynamo.close();
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a 10-day CLI timeline with state behind a proxy that drops the response of ~10% of applied writes', () => {
  it('keeps the archive exact, every run green, and verify clean', async () => {
    const dest = join(dir, 'archive');
    const env = {
      TUNNEL_API_KEY: EMULATOR_PAID_KEY,
      AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'error',
      TMPDIR: join(dir, 'tmp'),
    };
    const runArgs = () => [
      'run',
      '--now',
      clock.now().toISOString(),
      '--base-url',
      emulator.url,
      '--dest',
      `file://${dest}`,
      '--state',
      `dynamodb://${dynamo.table}`,
      '--quiet',
    ];
    const codes: number[] = [];
    for (let day = 0; day < 10; day++) {
      clock.set(new Date(START + day * 86_400_000));
      const r = await runCli([...runArgs(), '--json'], env);
      expect(r.code, `day ${day}: ${r.stderr}`).toBe(0);
      codes.push(r.code ?? -1);
      const summary = JSON.parse(r.stdout);
      expect(summary.failedDays, `day ${day}`).toEqual([]);
      expect(summary.brokenPartitions, `day ${day}`).toEqual([]);
    }
    const stats = proxy.stats();
    expect(stats.dropped).toBeGreaterThan(10);
    expect(stats.dropped / stats.applied).toBeGreaterThan(0.05);

    // A last run over every window day (still through the proxy): green, and then the archive holds every
    // record the API exposes, exactly once.
    const today = toDay(clock.now());
    const window = dayRange(windowStartOf(today, 60), today);
    const sweep = await runCli([...runArgs(), '--days', window.join(',')], env);
    expect(sweep.code, sweep.stderr).toBe(0);
    const tokenKey = new Uint8Array(await readFile(join(cliKeysDir(dest), LOCAL_KEY_FILES.tokenKey)));
    const archive = await archivedIds(createFileObjectStore(dest));
    expect(archive.total).toBe(archive.distinct);
    const archived = new Set([...archive.byDt.values()].flat());
    const truth = new Set(
      window.flatMap((d) => emulator.truth(d, clock.now()).map((r) => recordId(r, tokenKey))),
    );
    expect(truth.size).toBeGreaterThan(1000);
    for (const id of truth) expect(archived.has(id), id).toBe(true);
    // Nothing else either, beyond days that have left the window since they were archived.
    const gone = [...archived].filter((id) => !truth.has(id));
    const leftDays = [...archive.byDt.keys()].filter((d) => d < window[0]!);
    const leftIds = new Set(leftDays.flatMap((d) => archive.byDt.get(d) ?? []));
    expect(gone.filter((id) => !leftIds.has(id))).toEqual([]);

    // An auditor's check agrees: chain, signatures, files, no doubles.
    const verify = await runCli(['verify', '--now', clock.now().toISOString(), '--dest', `file://${dest}`], {
      LOG_LEVEL: 'error',
    });
    expect(verify.code, verify.stdout).toBe(0);
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { ChecksumJobsStandIn } from '../../../devkit/checksumJobsStandIn.ts';
import { createArchiveHandler } from '../../../functions/archive-history/archiveHandler.ts';
import type { ArchiveHandlerDeps } from '../../../functions/shared/archiveHandlerDeps.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';
import type { ArchiveDeps, ArchiveOptions, RunSummary } from '../../../lib/archive/run/runTypes.ts';
import type { StateStore } from '../../../lib/archive/state/statePorts.ts';
import type { ObjectStore } from '../../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../../lib/foundation/errors/archiverError.ts';
import { addObject, emptyFingerprint } from '../../../lib/integrity/verify/checksumFingerprint.ts';
import type { VerifyProgress } from '../../../lib/integrity/verify/verifyProgress.ts';
import type { VerifyResult } from '../../../lib/integrity/verify/verifyTypes.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { SimulatedStore } from '../../verify/simulatedStore.ts';
import { runSummary } from './runSummaryFixture.ts';

function verifyResult(overrides: Partial<VerifyResult> = {}): VerifyResult {
  return {
    ok: true,
    checkedAt: '2025-02-06T12:00:00.000Z',
    digests: 3,
    lastDigestAt: '2025-02-06T11:00:00.000Z',
    head: { seq: 3, key: 'digests/0000000003.json', sha256: 'c'.repeat(64) },
    expectedHeads: [],
    files: 10,
    rows: 100,
    records: 100,
    failures: [],
    days: [],
    pending: 2,
    lostSessions: 0,
    ...overrides,
  };
}

const API_KEY = 'key-that-must-never-be-logged';
const NOW = '2025-02-06T12:00:00.000Z';

/** The handler with recording fakes around it; `outcome` is what the engine does. */
function harness(outcome: () => Promise<RunSummary>, overrides: Partial<ArchiveHandlerDeps> = {}) {
  const calls = {
    runs: [] as { deps: ArchiveDeps; options: ArchiveOptions }[],
    keys: [] as string[],
    closed: 0,
    published: 0,
  };
  const metrics: Record<string, number> = {};
  const logs: { level: string; message: string; attributes?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, attributes?: Record<string, unknown>) =>
    logs.push({ level, message, ...(attributes === undefined ? {} : { attributes }) });
  const handler = createArchiveHandler({
    config: loadConfig({
      env: { ARCHIVE_DEST: 's3://archive-bucket/', ARCHIVE_STATE: 'dynamodb://state', PAGE_SIZE: '500' },
    }),
    objects: { url: 's3://archive-bucket/' } as ObjectStore,
    state: { getMeta: async () => undefined } as unknown as StateStore,
    clock: new ManualClock(NOW),
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    metrics: {
      addMetric: (name, _unit, value) => {
        metrics[name] = value;
      },
      publishStoredMetrics: () => {
        calls.published += 1;
      },
    },
    getApiKey: async () => API_KEY,
    getKeys: async () => ({
      tokenKey: new Uint8Array(32).fill(1),
      signer: { keyId: 'test-signer' } as never,
    }),
    createApi: (key) => {
      calls.keys.push(key);
      return {
        listActive: async () => [],
        historyPage: async () => ({}) as never,
        close: async () => void calls.closed++,
      };
    },
    run: async (deps, options) => {
      calls.runs.push({ deps, options });
      return outcome();
    },
    ...overrides,
  });
  const context = { getRemainingTimeInMillis: () => 900_000 };
  return { handler, context, calls, metrics, logs };
}

describe('createArchiveHandler', () => {
  it('runs the plan with a deadline inside the remaining time and reports success', async () => {
    const summary = runSummary({ recordsNew: 7 });
    const h = harness(async () => summary);
    await expect(h.handler({ 'detail-type': 'Scheduled Event' }, h.context)).resolves.toBe(summary);
    expect(h.calls.runs).toHaveLength(1);
    const { options } = h.calls.runs[0]!;
    // The budget ends at Lambda's timeout; work stops the one reserve (DEADLINE_RESERVE_MS, 60 s) before it.
    expect(options.budget?.endsAt?.toISOString()).toBe('2025-02-06T12:15:00.000Z');
    expect(options.budget?.stopAt?.toISOString()).toBe('2025-02-06T12:14:00.000Z');
    expect(options.pageSize).toBe(500);
    expect(options.onlyDays).toBeUndefined();
    expect(h.calls.keys).toEqual([API_KEY]);
    expect(h.calls.closed).toBe(1);
    expect(h.metrics).toMatchObject({ RecordsArchived: 7, RunSucceeded: 1, AuthFailures: 0 });
    expect(h.calls.published).toBe(1);
  });

  it('records the chain head on every run: the ChainHeadSeq metric and the run finished log line', async () => {
    const digest = {
      key: 'digests/0000000012.json',
      files: 3,
      seq: 12,
      sha256: 'e'.repeat(64),
      createdAt: NOW,
    };
    const h = harness(async () => runSummary({ digest }));
    await h.handler({}, h.context);
    expect(h.metrics).toMatchObject({ ChainHeadSeq: 12 });
    const finished = h.logs.find((l) => l.message === 'run finished');
    expect(finished?.attributes).toMatchObject({ digest: { seq: 12, sha256: 'e'.repeat(64) } });
    const without = harness(async () => runSummary());
    await without.handler({}, without.context);
    expect(without.metrics).not.toHaveProperty('ChainHeadSeq');
  });

  it('passes backfillDays to the engine as onlyDays', async () => {
    const h = harness(async () => runSummary());
    await h.handler({ backfillDays: ['2025-02-03', '2025-02-01'] }, h.context);
    expect(h.calls.runs[0]?.options.onlyDays).toEqual(['2025-02-01', '2025-02-03']);
  });

  it.each([
    ['AUTH_REJECTED', 1],
    ['PLAN_REQUIRED', 1],
    ['UPSTREAM_UNAVAILABLE', 0],
  ] as const)(
    're-throws a %s failure after publishing AuthFailures=%i and closing the client',
    async (code, auth) => {
      const failure = new ArchiverError(code, `failed with ${code}`);
      const h = harness(async () => {
        throw failure;
      });
      await expect(h.handler({}, h.context)).rejects.toBe(failure);
      expect(h.metrics).toEqual({ AuthFailures: auth, RunSucceeded: 0 });
      expect(h.calls.published).toBe(1);
      expect(h.calls.closed).toBe(1);
      expect(h.logs.at(-1)).toMatchObject({ level: 'error', message: 'run failed', attributes: { code } });
    },
  );

  it('rejects an invalid event before reading the key, and still publishes metrics', async () => {
    const h = harness(async () => runSummary());
    await expect(h.handler({ backfillDays: ['yesterday'] }, h.context)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(h.calls.keys).toEqual([]);
    expect(h.calls.runs).toEqual([]);
    expect(h.metrics).toEqual({ AuthFailures: 0, RunSucceeded: 0 });
    expect(h.calls.published).toBe(1);
  });

  it('fails without calling the API when the key cannot be read', async () => {
    const h = harness(async () => runSummary(), {
      getApiKey: async () => {
        throw new ArchiverError('CONFIG_INVALID', 'secret not set');
      },
    });
    await expect(h.handler({}, h.context)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(h.calls.runs).toEqual([]);
    expect(h.calls.published).toBe(1);
  });

  it('never logs the API key', async () => {
    const ok = harness(async () => runSummary());
    await ok.handler({}, ok.context);
    const failed = harness(async () => {
      throw new Error('boom');
    });
    await expect(failed.handler({}, failed.context)).rejects.toThrow('boom');
    expect(JSON.stringify([...ok.logs, ...failed.logs])).not.toContain(API_KEY);
  });

  it('hands the token key and the signer to the engine with its other deps', async () => {
    const keys = { tokenKey: new Uint8Array(32), signer: { keyId: 'k' } as never };
    const h = harness(async () => runSummary(), { getKeys: async () => keys });
    await h.handler({}, h.context);
    expect(h.calls.runs[0]?.deps).toMatchObject(keys);
  });

  it('verifies on {"verify": true}: no engine run, VerifyFailures and VerifyPending published, each failure logged', async () => {
    const seen: unknown[] = [];
    const failure = { kind: 'hash' as const, object: 'history/dt=2025-01-01/a.parquet', message: 'changed' };
    const h = harness(async () => runSummary(), {
      verify: async (_deps, options) => {
        seen.push(options);
        return verifyResult({ ok: false, failures: [failure] });
      },
    });
    const result = (await h.handler({ verify: true }, h.context)) as VerifyResult;
    expect(result.ok).toBe(false);
    expect(h.calls.runs).toEqual([]);
    expect(seen).toEqual([
      expect.objectContaining({ windowDays: 60, pageSize: 500, api: expect.anything() }),
    ]);
    expect(h.metrics).toEqual({ VerifyFailures: 1, VerifyPending: 2 });
    expect(h.calls.closed).toBe(1);
    expect(h.calls.published).toBe(1);
    expect(h.logs).toContainEqual({ level: 'error', message: 'verify failure', attributes: failure });
  });

  it('compares the chain with the head the state table recorded, so a truncated chain is noticed', async () => {
    const seen: { expectedHeads?: unknown }[] = [];
    const chainHead = { seq: 9, key: 'digests/0000000009.json', sha256: 'd'.repeat(64), at: NOW };
    const h = harness(async () => runSummary(), {
      state: { getMeta: async () => ({ chainHead }) } as unknown as StateStore,
      verify: async (_deps, options) => {
        seen.push(options);
        return verifyResult();
      },
    });
    await h.handler({ verify: true }, h.context);
    expect(seen[0]?.expectedHeads).toEqual([{ seq: 9, sha256: 'd'.repeat(64), source: 'the state table' }]);
  });

  it('hands the weekly verify its recorded progress and records the new one in META, never an older head', async () => {
    const state = new MemoryStateStore();
    await state.putMeta({ firstRunAt: NOW, firstWindowStart: '2024-12-09', version: 0 });
    const progress = (seq: number): VerifyProgress => ({
      at: NOW,
      head: { seq, key: `digests/${String(seq).padStart(10, '0')}.json`, sha256: 'a'.repeat(64) },
      boundary: NOW,
      objects: 10,
      unlisted: [],
      rotation: { startedAt: NOW, nextSeq: 1, periodWeeks: 13 },
    });
    const given: (VerifyProgress | undefined)[] = [];
    let next = 4;
    const h = harness(async () => runSummary(), {
      state,
      verify: async (_deps, options) => {
        given.push(options.progress);
        const weekly = { mode: 'incremental' as const, progress: progress(next), newDigests: 1, newFiles: 1 };
        return {
          ...verifyResult(),
          weekly: { ...weekly, rotation: { from: 1, to: 1, files: 1, byChecksum: 1, read: 0 } },
        };
      },
    });
    await h.handler({ verify: true }, h.context);
    expect((await state.getMeta())?.verified?.head.seq).toBe(4);
    next = 2; // a slower, older verify finishing late
    await h.handler({ verify: true }, h.context);
    expect(given).toEqual([undefined, progress(4)]);
    expect((await state.getMeta())?.verified?.head.seq).toBe(4);
  });

  it('publishes VerifyFailures=0 for an intact archive', async () => {
    const h = harness(async () => runSummary(), { verify: async () => verifyResult() });
    await h.handler({ verify: true }, h.context);
    expect(h.metrics).toMatchObject({ VerifyFailures: 0 });
  });

  it('judges finished checksum jobs on {"checksumReports": true}: failures counted and logged, verdicts kept in META for the weekly verify', async () => {
    const clock = new ManualClock('2024-01-01T00:00:00.000Z');
    const objects = new SimulatedStore(clock, false);
    const key = 'history/dt=2024-01-01/a.parquet';
    await objects.put(key, 'the bytes as written');
    const jobs = new ChecksumJobsStandIn(objects);
    const id = await jobs.submit({ createdBefore: new Date('2024-01-02T00:00:00.000Z'), token: 't' });
    const state = new MemoryStateStore();
    const progress: VerifyProgress = {
      at: NOW,
      head: { seq: 1, key: 'digests/0000000001.json', sha256: 'a'.repeat(64) },
      boundary: NOW,
      objects: 1,
      unlisted: [],
      rotation: { startedAt: NOW, nextSeq: 1, periodWeeks: 13 },
      checksums: {
        weeks: {},
        keyFiles: {},
        rotation: { startedAt: NOW, cursor: 0, periodWeeks: 13 },
        // What the digests say the object holds: not what the store now computes.
        jobs: [
          {
            id,
            kind: 'rotation',
            submittedAt: NOW,
            before: '2024-01-02T00:00:00.000Z',
            expected: addObject(emptyFingerprint, key, 'b'.repeat(64)),
          },
        ],
        verdicts: [],
      },
    };
    await state.putMeta({ firstRunAt: NOW, firstWindowStart: '2024-12-09', version: 0, verified: progress });
    const h = harness(async () => runSummary(), { state, objects, checksumJobs: jobs });
    // Still running: nothing judged, the job waits.
    expect(await h.handler({ checksumReports: true }, h.context)).toEqual({
      judged: 0,
      failures: 0,
      waiting: 1,
    });
    await jobs.runPending();
    const summary = await h.handler({ checksumReports: true }, h.context);
    expect(summary).toMatchObject({ judged: 1, waiting: 0 });
    expect(h.metrics.VerifyFailures).toBeGreaterThanOrEqual(1);
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        message: 'verify failure',
        attributes: expect.objectContaining({ kind: 'unlisted', object: key }),
      }),
    );
    const kept = (await state.getMeta())?.verified?.checksums;
    expect(kept?.jobs).toEqual([]);
    expect(kept?.verdicts.map((v) => ({ id: v.id, ok: v.ok }))).toEqual([{ id, ok: false }]);
    expect(kept?.lastChecked?.rotation).toMatchObject({ id, ok: false, objects: 1 });
  });
});

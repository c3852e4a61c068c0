import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dayOfRecords,
  ScriptedUpstream,
  type ScriptedUpstreamOptions,
  sessionRecord,
} from '../../devkit/scriptedUpstream.ts';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { pendingDigest } from '../../lib/archive/digest/pendingDigest.ts';
import { readDigestChain } from '../../lib/archive/digest/readDigestChain.ts';
import { KEY_CHECK_KEY } from '../../lib/archive/keys/checkArchiveKeys.ts';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { ArchiveDeps } from '../../lib/archive/run/runTypes.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { archivedIds, TEST_OPTIONS, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';

const START = '2026-11-20T06:00:00.000Z';

interface Rig {
  clock: ManualClock;
  days: Map<Day, unknown[]>;
  api: ScriptedUpstream;
  objects: ObjectStore;
  state: StateStore;
  dynamo: DynaliteHandle;
  dir: string;
  deps(extra?: Partial<ArchiveDeps>): ArchiveDeps;
}
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.dynamo.close();
  if (rig) await rm(rig.dir, { recursive: true, force: true });
  rig = undefined;
});

/** A scripted 60-day window of small days, a file store and a DynamoDB-compatible state store. */
async function startRig(opts: Partial<ScriptedUpstreamOptions> = {}, perDay = 12): Promise<Rig> {
  const clock = new ManualClock(START);
  const today = toDay(clock.now());
  const days = new Map<Day, unknown[]>();
  let n = 0;
  for (const d of dayRange(addDays(today, -59), today)) {
    days.set(d, dayOfRecords(d, perDay, n));
    n += perDay;
  }
  const api = new ScriptedUpstream({ clock, days, maxPageSize: 5, ...opts });
  const dir = await mkdtemp(join(tmpdir(), 'ta-recovery-'));
  const dynamo = await startDynalite();
  const objects = createFileObjectStore(join(dir, 'archive'));
  const state = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
  const r: Rig = {
    clock,
    days,
    api,
    objects,
    state,
    dynamo,
    dir,
    deps: (extra = {}) => ({ ...testDeps({ api, objects, state, clock }), ...extra }),
  };
  return r;
}

/** Record ids the scripted server holds now, over every day. */
function truth(r: Rig, days?: Day[]): Set<string> {
  const ids = new Set<string>();
  for (const [d, items] of r.days) {
    if (days && !days.includes(d)) continue;
    for (const item of items) {
      const parsed = historyRecordSchema.safeParse(item);
      if (parsed.success) ids.add(recordId(parsed.data, TEST_TOKEN_KEY));
    }
  }
  return ids;
}

async function archivedSet(objects: ObjectStore): Promise<{ ids: Set<string>; total: number }> {
  const a = await archivedIds(objects);
  return { ids: new Set([...a.byDt.values()].flat()), total: a.total };
}

/** The state store, with the response of chosen writes lost after they were applied (the SDK then retries). */
function losingResponses(state: StateStore, lose: (op: string, n: number) => boolean): StateStore {
  const counts = new Map<string, number>();
  const wrap =
    <A extends unknown[], R>(op: string, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const n = (counts.get(op) ?? 0) + 1;
      counts.set(op, n);
      const result = await f(...a);
      if (lose(op, n)) {
        // Applied; the response is lost and the SDK's retry of the conditional put is refused.
        throw new ArchiverError('CONFLICT', `${op}: conditional check failed (on a retry)`);
      }
      return result;
    };
  return {
    ...state,
    acquireLease: state.acquireLease.bind(state),
    renewLease: state.renewLease.bind(state),
    releaseLease: state.releaseLease.bind(state),
    getMeta: state.getMeta.bind(state),
    putMeta: wrap('putMeta', state.putMeta.bind(state)),
    getDay: state.getDay.bind(state),
    listDays: state.listDays.bind(state),
    putDay: wrap('putDay', state.putDay.bind(state)),
    getPartition: state.getPartition.bind(state),
    listPartitions: state.listPartitions.bind(state),
    putPartition: wrap('putPartition', state.putPartition.bind(state)),
  };
}

describe('runArchive recovery', () => {
  it('survives manifest and day writes whose response was lost: exact archive, no broken partition, next run green', async () => {
    rig = await startRig();
    const r = rig;
    const lossy = losingResponses(r.state, (op, n) => op !== 'putMeta' && n % 3 === 1);
    const first = await runArchive(r.deps({ state: lossy }), TEST_OPTIONS);
    expect(first.failedDays).toEqual([]);
    expect(first.brokenPartitions).toEqual([]);
    const archived = await archivedSet(r.objects);
    expect(archived.ids).toEqual(truth(r));
    expect(archived.total).toBe(archived.ids.size);
    const second = await runArchive(r.deps(), TEST_OPTIONS);
    expect(second.failedDays).toEqual([]);
    expect(second.brokenPartitions).toEqual([]);
    expect(second.recordsNew).toBe(0);
    const staged: string[] = [];
    for await (const o of r.objects.list('_staging/')) staged.push(o.key);
    expect(staged).toEqual([]);
  });

  it('archives rows beyond a stale total: a server whose COUNT is rounded down to whole pages', async () => {
    rig = await startRig({ staleTotals: 'floor-pages' }, 13);
    const r = rig;
    const summary = await runArchive(r.deps(), TEST_OPTIONS);
    expect(summary.failedDays).toEqual([]);
    expect((await archivedSet(r.objects)).ids).toEqual(truth(r));
    expect(summary.days.every((d) => d.complete && d.unreliableTotals)).toBe(true);
  });

  it('sweeps a day on each of its last two queryable days and seals it only after the last', async () => {
    rig = await startRig();
    const r = rig;
    await runArchive(r.deps(), TEST_OPTIONS);
    const day = addDays(toDay(r.clock.now()), -58);
    expect((await r.state.getDay(day))?.sealed).toBe(false);
    // A session of that day that ends between the two sweeps.
    r.days.get(day)?.push(sessionRecord(`${day}T23:00:00Z`, 99_999));
    r.clock.advance(86_400_000);
    const last = await runArchive(r.deps(), TEST_OPTIONS);
    expect(last.days.find((d) => d.day === day)).toMatchObject({
      reason: 'final',
      sealed: true,
      newRecords: 1,
    });
    expect((await archivedSet(r.objects)).ids).toEqual(truth(r));
  });

  it('turns a 400 for the oldest day into a gap, learns the server window, and goes on', async () => {
    rig = await startRig({ windowDays: 59 });
    const r = rig;
    const oldest = addDays(toDay(r.clock.now()), -59);
    const first = await runArchive(r.deps(), TEST_OPTIONS);
    expect(first.gaps).toEqual([oldest]);
    expect(first.failedDays).toEqual([]);
    expect(first.learnedWindowDays).toBe(59);
    expect(first.daysScanned).toBe(59);
    expect((await r.state.getDay(oldest))?.gapReason).toContain('400');
    const archived = await archivedSet(r.objects);
    expect(archived.ids).toEqual(
      truth(
        r,
        [...r.days.keys()].filter((d) => d !== oldest),
      ),
    );
    // The next day, the planner already knows: the day now at age 58 is swept, age 59 is never asked.
    r.clock.advance(86_400_000);
    r.api.requests.length = 0;
    const second = await runArchive(r.deps(), TEST_OPTIONS);
    expect(second.failedDays).toEqual([]);
    expect(r.api.requests.some((q) => q.day === addDays(toDay(r.clock.now()), -59))).toBe(false);
    expect(second.days.find((d) => d.day === addDays(toDay(r.clock.now()), -58))).toMatchObject({
      sealed: true,
    });
  });

  it('isolates a failing day: recorded with code and attempts, other days archived, every run', async () => {
    const bad = addDays(toDay(new Date(START)), -20);
    rig = await startRig({
      beforeRequest: (day) => {
        if (day === bad) throw new ArchiverError('SCHEMA_MISMATCH', 'undocumented body');
      },
    });
    const r = rig;
    for (let run = 1; run <= 3; run++) {
      const s = await runArchive(r.deps(), TEST_OPTIONS);
      expect(s.failedDays).toEqual([
        expect.objectContaining({ day: bad, code: 'SCHEMA_MISMATCH', attempts: run }),
      ]);
    }
    const state = await r.state.getDay(bad);
    expect(state?.failure).toMatchObject({ code: 'SCHEMA_MISMATCH', attempts: 3 });
    expect(state?.failure?.firstFailedAt).toBeDefined();
    expect((await archivedSet(r.objects)).ids).toEqual(
      truth(
        r,
        [...r.days.keys()].filter((d) => d !== bad),
      ),
    );
  });

  it('commits what a walk held when the deadline cut it short, goes on from there next run, and reports it only once resumed walks stop getting further', async () => {
    const heavy = addDays(toDay(new Date(START)), -59);
    let clockRef: ManualClock | undefined;
    rig = await startRig({
      beforeRequest: (day, page) => {
        // The oldest day is slow: each of its pages costs 10 simulated seconds.
        if (day === heavy && page > 0) clockRef?.advance(10_000);
      },
    });
    const r = rig;
    r.days.set(heavy, dayOfRecords(heavy, 40, 500_000));
    clockRef = r.clock;
    const withDeadline = () => ({
      ...TEST_OPTIONS,
      budget: deadlineBudget(r.clock, new Date(r.clock.now().getTime() + 25_000), 2_000),
    });
    // AbortSignal.timeout runs on real time, so the scripted server aborts by the simulated clock instead.
    const deadlineApi = new Proxy(r.api, {
      get(target, prop, receiver) {
        if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<ScriptedUpstream['historyPage']>) => {
          const limit = current?.budget?.endsAt?.getTime() ?? Number.POSITIVE_INFINITY;
          if (r.clock.now().getTime() >= limit - 1_000)
            throw new ArchiverError('DEADLINE', 'aborted (deadline)');
          return target.historyPage(...args);
        };
      },
    });
    let current: ReturnType<typeof withDeadline> | undefined;
    let lastPage = 0;
    // Each run goes on where the last one stopped (it does not start at page 0 again): progress, no failure.
    for (let run = 1; run <= 2; run++) {
      current = withDeadline();
      const s = await runArchive(r.deps({ api: deadlineApi }), current);
      expect(s.stoppedByDeadline).toBe(true);
      expect(s.days[0]).toMatchObject({ day: heavy, interrupted: true });
      expect(s.days[0]?.newRecords ?? 0).toBeGreaterThan(0);
      expect(s.deferredDays[0]).toBe(heavy);
      expect(s.failedDays).toEqual([]);
      const walk = (await r.state.getDay(heavy))?.walk;
      expect(walk?.nextPage ?? 0, `run ${run} got further`).toBeGreaterThan(lastPage);
      lastPage = walk?.nextPage ?? 0;
      expect((await r.state.getDay(heavy))?.deferredRuns).toBe(1);
      r.clock.advance(60_000);
    }
    // A deadline that leaves no time for a single page: resumed walks stop getting further, and after
    // the limit of such runs the day is reported (DEADLINE) while it stays due.
    const stuck = new Proxy(r.api, {
      get(target, prop, receiver) {
        if (prop !== 'historyPage') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<ScriptedUpstream['historyPage']>) => {
          if (args[0] === heavy) throw new ArchiverError('DEADLINE', 'aborted (deadline)');
          return target.historyPage(...args);
        };
      },
    });
    for (let run = 1; run <= 2; run++) {
      const s = await runArchive(r.deps({ api: stuck }), withDeadline());
      expect(s.days[0]).toMatchObject({ day: heavy, interrupted: true, newRecords: 0 });
      if (run < 2) expect(s.failedDays).toEqual([]);
      else expect(s.failedDays).toEqual([expect.objectContaining({ day: heavy, code: 'DEADLINE' })]);
      r.clock.advance(60_000);
    }
    // Without a deadline the day completes, and nothing it committed before is written twice.
    const done = await runArchive(r.deps(), TEST_OPTIONS);
    expect(done.failedDays).toEqual([]);
    const archived = await archivedSet(r.objects);
    expect(archived.ids).toEqual(truth(r));
    expect(archived.total).toBe(archived.ids.size);
    expect((await r.state.getDay(heavy))?.deferredRuns).toBeUndefined();
  });

  it('publishes committed files before its preflight, so an API outage or a revoked key cannot hold them', async () => {
    rig = await startRig();
    const r = rig;
    let publishes = 0;
    const crashing: ObjectStore = Object.assign(Object.create(r.objects) as ObjectStore, {
      publish: async () => {
        publishes++;
        throw new ArchiverError('STORE_FAILED', 'simulated crash before publish');
      },
    });
    const first = await runArchive(r.deps({ objects: crashing }), TEST_OPTIONS);
    expect(first.failedDays.length).toBe(60);
    expect(publishes).toBe(60);
    const pendingBefore = (await r.state.listPartitions())
      .flatMap((m) => m.files)
      .filter((f) => !f.published);
    expect(pendingBefore.length).toBeGreaterThan(0);
    const revoked = new ScriptedUpstream({ clock: r.clock, days: r.days });
    revoked.historyPage = async () => {
      throw new ArchiverError('AUTH_REJECTED', '401');
    };
    await expect(runArchive(r.deps({ api: revoked }), TEST_OPTIONS)).rejects.toMatchObject({
      code: 'AUTH_REJECTED',
    });
    const pendingAfter = (await r.state.listPartitions()).flatMap((m) => m.files).filter((f) => !f.published);
    expect(pendingAfter).toEqual([]);
    expect((await archivedSet(r.objects)).ids).toEqual(truth(r));
  });

  it('blocks only the partition whose manifest lists a missing file, with a clear error', async () => {
    rig = await startRig();
    const r = rig;
    const { victim, file } = await archiveThenLoseAFile(r, 10);
    await r.state.putPartition({ ...victim, files: victim.files.map((f) => ({ ...f, published: false })) });
    // A committed, unpublished file was noted for the next digest when it was committed: a run publishes it.
    await pendingDigest.note(r.state, [
      { key: `history/dt=${victim.dt}/${file.name}`, at: file.committedAt },
    ]);
    r.clock.advance(86_400_000);
    const s = await runArchive(r.deps(), { ...TEST_OPTIONS, onlyDays: [victim.dt, addDays(victim.dt, 1)] });
    expect(s.brokenPartitions).toEqual([`history/dt=${victim.dt}`]);
    expect(s.failedDays).toEqual([expect.objectContaining({ day: victim.dt, code: 'PARTITION_BROKEN' })]);
    expect(s.failedDays[0]?.message).toContain('tunnel-archiver repair');
    expect(s.days.map((d) => d.day)).toEqual([addDays(victim.dt, 1)]);
  });

  it('takes over a lease whose holder is certainly dead instead of waiting for it to expire', async () => {
    rig = await startRig();
    const r = rig;
    const held = await r.state.acquireLease('crashed@host:999999', r.clock.now(), 600_000);
    expect(held).toBeDefined();
    await expect(runArchive(r.deps(), TEST_OPTIONS)).rejects.toMatchObject({ code: 'LEASE_HELD' });
    const s = await runArchive(
      r.deps({ isLeaseHolderDead: (holder) => holder.owner === 'crashed@host:999999' }),
      TEST_OPTIONS,
    );
    expect(s.daysScanned).toBe(60);
  });
});

describe('repairPartition', () => {
  it('drops only the missing file from a broken manifest; the next scan re-archives its rows exactly once', async () => {
    const { repairPartition } = await import('../../lib/archive/commit/repairPartition.ts');
    rig = await startRig();
    const r = rig;
    const { victim, file } = await archiveThenLoseAFile(r, 20);
    const dry = await repairPartition(r.deps(), victim.dt, { apply: false });
    expect(dry.dropped.map((f) => f.name)).toEqual([file.name]);
    expect((await r.state.getPartition(victim.dt))?.files).toHaveLength(victim.files.length);
    const applied = await repairPartition(r.deps(), victim.dt, { apply: true });
    expect(applied.rowsLost).toBe(file.rows);
    expect((await r.state.getPartition(victim.dt))?.files.map((f) => f.name)).not.toContain(file.name);
    const rescan = await runArchive(r.deps(), { ...TEST_OPTIONS, onlyDays: [victim.dt] });
    expect(rescan.failedDays).toEqual([]);
    expect(rescan.recordsNew).toBe(file.rows);
    const archived = await archivedSet(r.objects);
    expect(archived.ids).toEqual(truth(r));
    expect(archived.total).toBe(archived.ids.size);
  });
});

describe('checkArchiveKeys', () => {
  it('refuses to write into an archive with another token key or signing key, before any new data', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { ed25519Signer } = await import('../../lib/archive/digest/ed25519Signer.ts');
    rig = await startRig();
    const r = rig;
    await runArchive(r.deps(), TEST_OPTIONS);
    const before = await archivedSet(r.objects);
    r.clock.advance(86_400_000);
    const yesterday = addDays(toDay(r.clock.now()), -1);
    r.days.get(yesterday)?.push(sessionRecord(`${yesterday}T23:00:00Z`, 777_777));
    const otherToken = new Uint8Array(32).fill(9);
    await expect(runArchive(r.deps({ tokenKey: otherToken }), TEST_OPTIONS)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('token key'),
    });
    const otherSigner = ed25519Signer(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    await expect(runArchive(r.deps({ signer: otherSigner }), TEST_OPTIONS)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('digest signing key'),
    });
    expect((await archivedSet(r.objects)).total).toBe(before.total);
    // With the right keys the same run goes through.
    expect((await runArchive(r.deps(), TEST_OPTIONS)).recordsNew).toBeGreaterThan(0);
  });

  it.each([
    ['empty', ''],
    ['malformed', '{"tokenKeyCheck": '],
    ['malformed', '{"other": 1}\n'],
  ])('stops with CONFIG_INVALID, writing nothing, when the key check is %s (%j)', async (word, body) => {
    rig = await startRig();
    const r = rig;
    await r.objects.put(KEY_CHECK_KEY, body);
    await expect(runArchive(r.deps(), TEST_OPTIONS)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(`${KEY_CHECK_KEY} is ${word}`),
    });
    const keys: string[] = [];
    for await (const o of r.objects.list('')) keys.push(o.key);
    expect(keys).toEqual([KEY_CHECK_KEY]);
  });
});

describe('foreign files', () => {
  it('never adopts or digests a data file the archiver did not commit; reports it; verify names it', async () => {
    rig = await startRig();
    const r = rig;
    await runArchive(r.deps(), TEST_OPTIONS);
    const victim = (await r.state.listPartitions()).find((p) => (p.dataset ?? 'history') === 'history');
    const realKey = `history/dt=${victim?.dt}/${victim?.files[0]?.name}`;
    const rows = (await readHistoryRows(
      (await r.objects.get(realKey)) as Uint8Array,
    )) as unknown as ArchiveRow[];
    // Someone with write access plants a well-formed file: the same rows under fabricated ids.
    const plantedKey = `history/dt=${victim?.dt}/20990101T000000Z-planted-0.parquet`;
    const local = join(r.dir, 'planted.parquet');
    await writeHistoryParquet(
      rows.map((row, i) => ({ ...row, record_id: `${'f'.repeat(24)}${String(i).padStart(8, '0')}` })),
      local,
    );
    await r.objects.putFile(plantedKey, local);
    r.clock.advance(3_600_000);
    // A steady run never lists the archive, so never sees it; the reconciliation (weekly, or whenever the
    // state does not match the archive's head) lists everything and reports it.
    const steady = await runArchive(r.deps(), TEST_OPTIONS);
    expect(steady.foreignFiles).toBeUndefined();
    const next = await runArchive(r.deps(), { ...TEST_OPTIONS, reconcile: true });
    expect(next.foreignFiles).toEqual([plantedKey]);
    expect(next.failedDays).toEqual([]);
    expect((await r.state.getPartition(victim?.dt as string))?.files.map((f) => f.name)).not.toContain(
      '20990101T000000Z-planted-0.parquet',
    );
    const digested = (await readDigestChain(r.objects)).entries.flatMap((e) => e.digest?.files ?? []);
    expect(digested.map((f) => f.key)).toContain(realKey);
    expect(digested.map((f) => f.key)).not.toContain(plantedKey);
    const verified = await verifyArchive({ objects: r.objects, clock: r.clock }, { windowDays: 60 });
    expect(verified.failures).toEqual([expect.objectContaining({ kind: 'unlisted', object: plantedKey })]);
    // Removing it is the whole fix: the archive verifies again and nothing real was lost.
    await rm(join(r.dir, 'archive', ...plantedKey.split('/')));
    expect((await verifyArchive({ objects: r.objects, clock: r.clock }, { windowDays: 60 })).ok).toBe(true);
    const archived = await archivedSet(r.objects);
    expect(archived.ids).toEqual(truth(r));
  });
});

/** Archives the whole window, then deletes the first file of the `index`-th partition behind the manifest's back. */
async function archiveThenLoseAFile(r: Rig, index: number) {
  await runArchive(r.deps(), TEST_OPTIONS);
  const victim = (await r.state.listPartitions())[index];
  const file = victim?.files[0];
  if (!victim || !file) throw new Error('no partition');
  await rm(join(r.dir, 'archive', 'history', `dt=${victim.dt}`, file.name));
  return { victim, file };
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultPlan, isOutcomeUnknown, SimulatedCrash } from '../../../devkit/fakes/faultPlan.ts';
import { MemoryObjectStore } from '../../../devkit/fakes/memoryObjectStore.ts';
import type { PartitionManifest } from '../../../lib/archive/state/partitionManifest.ts';
import { faultScheduleArb } from './faultSchedule.ts';
import { MemoryStateStore } from './memoryStateStore.ts';

const T0 = new Date('2024-06-01T00:00:00Z');

const manifest = (dt: string, version = 0, dataset?: 'history' | 'active'): PartitionManifest =>
  ({
    dt,
    version,
    files: [],
    ...(dataset === undefined ? {} : { dataset }),
  }) as PartitionManifest;

/** Settles a promise into what the caller saw. */
async function outcome<T>(p: Promise<T>): Promise<{ ok: T } | { error: unknown }> {
  try {
    return { ok: await p };
  } catch (error) {
    return { error };
  }
}

describe('FaultPlan', () => {
  it('counts global steps across stores and calls per op, and logs every call', async () => {
    const plan = new FaultPlan();
    const state = new MemoryStateStore({ faults: plan });
    const objects = new MemoryObjectStore({ faults: plan });
    await state.getMeta();
    await objects.put('a/b', 'x');
    await state.getMeta();
    expect(plan.steps).toBe(3);
    expect(plan.count('state', 'getMeta')).toBe(2);
    expect(plan.log.map((e) => [e.step, e.store, e.op, e.n, e.outcome])).toEqual([
      [1, 'state', 'getMeta', 1, 'ok'],
      [2, 'object', 'put', 1, 'ok'],
      [3, 'state', 'getMeta', 2, 'ok'],
    ]);
  });

  it('fail: throws STORE_FAILED with a known outcome and applies nothing', async () => {
    const plan = new FaultPlan({ rules: [{ op: 'putPartition', call: 1, fault: 'fail' }] });
    const state = new MemoryStateStore({ faults: plan });
    const first = await outcome(state.putPartition(manifest('2024-05-01')));
    expect(first).toMatchObject({ error: { code: 'STORE_FAILED', details: { outcomeUnknown: false } } });
    expect(isOutcomeUnknown((first as { error: unknown }).error)).toBe(false);
    expect(state.dump()).toEqual({});
    // Only call 1 was targeted: the retry goes through.
    expect((await state.putPartition(manifest('2024-05-01'))).version).toBe(1);
  });

  it('lostResponse: applies the write, then reports an unknown outcome', async () => {
    const plan = new FaultPlan({ rules: [{ op: 'putPartition', call: 1, fault: 'lostResponse' }] });
    const state = new MemoryStateStore({ faults: plan });
    const seen = await outcome(state.putPartition(manifest('2024-05-01')));
    expect(isOutcomeUnknown((seen as { error: unknown }).error)).toBe(true);
    expect((await state.getPartition('2024-05-01'))?.version).toBe(1);
  });

  it("lostResponse in 'retry' mode: a conditional put is applied once, and the caller gets CONFLICT", async () => {
    const plan = new FaultPlan({
      rules: [{ op: 'putPartition', fault: 'lostResponse', mode: 'retry', times: 1 }],
    });
    const state = new MemoryStateStore({ faults: plan });
    const seen = await outcome(state.putPartition(manifest('2024-05-01')));
    expect(seen).toMatchObject({ error: { code: 'CONFLICT', details: { expectedVersion: 0 } } });
    expect((await state.getPartition('2024-05-01'))?.version).toBe(1);
    expect(plan.log.map((e) => e.outcome)).toEqual(['lostResponse', 'ok']);
  });

  it("lostResponse in 'retry' mode: the refused retry of an applied acquire is settled by re-reading: the lease is ours", async () => {
    const plan = new FaultPlan({
      rules: [{ op: 'acquireLease', fault: 'lostResponse', mode: 'retry', times: 1 }],
    });
    const state = new MemoryStateStore({ faults: plan });
    // The retry re-sends the write conditioned on the fence read before: it fails, as on DynamoDB; the
    // store then re-reads and finds its own owner and new fence.
    expect(await state.acquireLease('me', T0, 1000)).toEqual({
      owner: 'me',
      fence: 1,
      expiresAt: T0.getTime() + 1000,
    });
    expect(state.peekLease()).toEqual({ owner: 'me', fence: 1, expiresAt: T0.getTime() + 1000 });
    // Another owner's acquire is still refused.
    expect(await state.acquireLease('other', T0, 1000)).toBeUndefined();
  });

  it("lostResponse in 'retry' mode: an idempotent publish just succeeds", async () => {
    const plan = new FaultPlan({ rules: [{ op: 'publish', fault: 'lostResponse', mode: 'retry' }] });
    const objects = new MemoryObjectStore({ faults: plan });
    await objects.put('_staging/r/p', 'x');
    await objects.publish('_staging/r/p', 'history/dt=2024-01-01/p');
    expect(objects.keys()).toEqual(['history/dt=2024-01-01/p']);
  });

  it('matches by predicate, op, store and call number, and honours times', async () => {
    const plan = new FaultPlan({
      rules: [
        {
          fault: 'fail',
          store: 'state',
          when: (c) => c.op === 'putPartition' && (c.args[0] as PartitionManifest).dt === '2024-05-02',
          times: 2,
        },
      ],
    });
    const state = new MemoryStateStore({ faults: plan });
    await state.putPartition(manifest('2024-05-01'));
    await expect(state.putPartition(manifest('2024-05-02'))).rejects.toMatchObject({ code: 'STORE_FAILED' });
    await expect(state.putPartition(manifest('2024-05-02'))).rejects.toMatchObject({ code: 'STORE_FAILED' });
    expect((await state.putPartition(manifest('2024-05-02'))).version).toBe(1);
  });

  it('fires call-number rules on each listed call of that op', async () => {
    const plan = new FaultPlan({ rules: [{ op: 'put', call: [2, 4], fault: 'fail' }] });
    const objects = new MemoryObjectStore({ faults: plan });
    const results = [];
    for (let i = 1; i <= 5; i++) results.push('ok' in (await outcome(objects.put(`k/${i}`, 'x'))));
    expect(results).toEqual([true, false, true, false, true]);
    expect(objects.keys()).toEqual(['k/1', 'k/3', 'k/5']);
  });

  it('crashAfter(N): steps 1..N run, then every call throws SimulatedCrash without applying', async () => {
    const plan = new FaultPlan({ crashAfter: 2 });
    const state = new MemoryStateStore({ faults: plan });
    const objects = new MemoryObjectStore({ faults: plan });
    await objects.put('a/1', 'x');
    await state.putDay({ day: '2024-05-01', scannedAges: [], sealed: false, version: 0 });
    const crash = await outcome(objects.put('a/2', 'x'));
    expect((crash as { error: unknown }).error).toBeInstanceOf(SimulatedCrash);
    await expect(state.getMeta()).rejects.toBeInstanceOf(SimulatedCrash);
    expect(plan.crashed).toBe(true);
    expect(objects.keys()).toEqual(['a/1']);
    // A new process over the same stores.
    plan.revive();
    expect(await objects.head('a/1')).toEqual({ key: 'a/1', size: 1 });
    expect((await state.getDay('2024-05-01'))?.version).toBe(1);
  });

  it('crashes a listing when its iteration starts', async () => {
    const plan = new FaultPlan({ crashAfter: 0 });
    const objects = new MemoryObjectStore({ faults: plan });
    const iterate = async () => {
      for await (const _ of objects.list('')) void _;
    };
    await expect(iterate()).rejects.toBeInstanceOf(SimulatedCrash);
  });

  it('draws probabilistic faults reproducibly from its seed', async () => {
    const schedule = async (seed: number) => {
      const plan = new FaultPlan({ seed, rules: [{ op: '*', probability: 0.3, fault: 'fail' }] });
      const objects = new MemoryObjectStore({ faults: plan });
      for (let i = 0; i < 40; i++) await outcome(objects.put(`k/${i}`, 'x'));
      return plan.log.map((e) => e.outcome).join(',');
    };
    expect(await schedule(7)).toBe(await schedule(7));
    expect(await schedule(7)).not.toBe(await schedule(8));
    const fails = (await schedule(7)).split(',').filter((o) => o === 'fail').length;
    expect(fails).toBeGreaterThan(4);
    expect(fails).toBeLessThan(25);
    expect(() => new FaultPlan().add({ fault: 'fail', probability: 2 })).toThrow(RangeError);
  });

  it('lets a test swap the plan of a fake for the next run', async () => {
    const state = new MemoryStateStore({ faults: new FaultPlan({ crashAfter: 0 }) });
    await expect(state.getMeta()).rejects.toBeInstanceOf(SimulatedCrash);
    state.faults = FaultPlan.none();
    expect(await state.getMeta()).toBeUndefined();
  });
});

describe('MemoryStateStore', () => {
  it('keeps partition datasets apart (absent = history)', async () => {
    const state = new MemoryStateStore();
    await state.putPartition(manifest('2024-05-01'));
    await state.putPartition(manifest('2024-05-01', 0, 'active'));
    await state.putPartition(manifest('2024-05-02', 0, 'active'));
    expect((await state.getPartition('2024-05-01'))?.version).toBe(1);
    expect(await state.getPartition('2024-05-02')).toBeUndefined();
    expect(await state.getPartition('2024-05-02', 'active')).toMatchObject({ dataset: 'active', version: 1 });
    // Like the adapter's scan of PART#: every dataset, ordered by dataset then day.
    expect((await state.listPartitions()).map((m) => `${m.dataset ?? 'history'}/${m.dt}`)).toEqual([
      'active/2024-05-01',
      'active/2024-05-02',
      'history/2024-05-01',
    ]);
  });

  it('stores copies: mutating what was written or read does not change the store', async () => {
    const state = new MemoryStateStore();
    const written = { day: '2024-05-01', scannedAges: [1], sealed: false, version: 0 };
    const stored = await state.putDay(written);
    written.scannedAges.push(2);
    stored.scannedAges.push(3);
    expect((await state.getDay('2024-05-01'))?.scannedAges).toEqual([1]);
  });

  it('reports a malformed item (a day that fails its own validation) as INTERNAL', async () => {
    const state = new MemoryStateStore();
    state.setRaw('PART#-000001-06', { dt: '-000001-06', files: [] });
    await expect(state.listPartitions()).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('loses everything on wipe()', async () => {
    const state = new MemoryStateStore();
    await state.putMeta({ firstRunAt: 'x', firstWindowStart: '2024-05-01', version: 0 });
    await state.acquireLease('a', T0, 1000);
    state.wipe();
    expect(state.dump()).toEqual({});
    expect(state.peekLease()).toBeUndefined();
  });
});

describe('MemoryObjectStore', () => {
  it('lists across pages and sees keys written after the cursor mid-listing', async () => {
    const objects = new MemoryObjectStore({ pageSize: 2 });
    for (const k of ['p/1', 'p/2', 'p/3']) await objects.put(k, 'x');
    const seen: string[] = [];
    for await (const o of objects.list('p/')) {
      seen.push(o.key);
      if (o.key === 'p/1') await objects.put('p/4', 'y');
    }
    expect(seen).toEqual(['p/1', 'p/2', 'p/3', 'p/4']);
  });

  it('lets tests tamper with objects directly', async () => {
    const objects = new MemoryObjectStore();
    objects.poke('history/dt=2024-01-01/a.parquet', 'abc');
    expect(await objects.head('history/dt=2024-01-01/a.parquet')).toEqual({
      key: 'history/dt=2024-01-01/a.parquet',
      size: 3,
    });
    objects.poke('history/dt=2024-01-01/a.parquet', undefined);
    expect(objects.peek('history/dt=2024-01-01/a.parquet')).toBeUndefined();
  });
});

describe('FaultPlan.fromSchedule / faultScheduleArb', () => {
  it('injects each scheduled fault at its global step, once', async () => {
    const plan = FaultPlan.fromSchedule({
      faults: [
        { step: 2, fault: 'fail' },
        { step: 3, fault: 'lostResponse' },
      ],
    });
    const objects = new MemoryObjectStore({ faults: plan });
    for (let i = 1; i <= 4; i++) await outcome(objects.put(`k/${i}`, 'x'));
    expect(plan.log.map((e) => e.outcome)).toEqual(['ok', 'fail', 'lostResponse', 'ok']);
    expect(objects.keys()).toEqual(['k/1', 'k/3', 'k/4']);
  });

  it('generates schedules that stay within the steps and replay identically (property)', async () => {
    await fc.assert(
      fc.asyncProperty(faultScheduleArb({ maxStep: 12 }), async (schedule) => {
        const run = async () => {
          const plan = FaultPlan.fromSchedule(schedule);
          const state = new MemoryStateStore({ faults: plan });
          for (let i = 0; i < 12; i++) {
            await outcome(state.putDay({ day: '2024-05-01', scannedAges: [i], sealed: false, version: i }));
          }
          return { log: plan.log.map((e) => e.outcome), dump: state.dump() };
        };
        const first = await run();
        expect(await run()).toEqual(first);
        for (const f of schedule.faults) expect(f.step).toBeLessThanOrEqual(12);
        if (schedule.crashAfter !== undefined) {
          expect(first.log.filter((o) => o !== 'crash')).toHaveLength(schedule.crashAfter);
        }
      }),
      { numRuns: 50 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/clock/day.ts';
import { runArchive } from '../../lib/engine/runArchive.ts';
import { ArchiverError } from '../../lib/errors/archiverError.ts';
import { session } from '../active/activeKit.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryObjectStore } from '../support/fakes/memoryObjectStore.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../support/scriptedUpstream.ts';

/** A state whose META read answers only after a few turns of the event loop, noting what was asked meanwhile. */
function slowMetaState(api: ScriptedUpstream): { state: MemoryStateStore; askedDuringMetaRead: number[] } {
  const state = new MemoryStateStore();
  const askedDuringMetaRead: number[] = [];
  const getMeta = state.getMeta.bind(state);
  state.getMeta = async () => {
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    askedDuringMetaRead.push(api.requests.length);
    return getMeta();
  };
  return { state, askedDuringMetaRead };
}

describe('the preflight of a run', () => {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const day: Day = addDays(toDay(clock.now()), -2);
  const options = { ...TEST_OPTIONS, onlyDays: [day], snapshotActive: false };

  it('is asked for while the state is read, not after (its latency hides under the reads)', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    const { state, askedDuringMetaRead } = slowMetaState(api);
    const summary = await runArchive(
      testDeps({ api, objects: new MemoryObjectStore(), state, clock }),
      options,
    );
    expect(askedDuringMetaRead[0]).toBe(1);
    expect(api.requests[0]).toMatchObject({ day: toDay(clock.now()), page: 0, size: 1 });
    expect(summary.recordsNew).toBe(30);
  });

  it('sends the active list beside the preflight; the snapshot observes it when it arrived', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    let preflightAnswered = false;
    let listedBeforePreflightAnswered: boolean | undefined;
    const history = api.historyPage.bind(api);
    api.historyPage = async (...args) => {
      const page = await history(...args);
      if (args[3] === 1) preflightAnswered = true;
      return page;
    };
    let arrived: string | undefined;
    api.listActive = async () => {
      listedBeforePreflightAnswered = !preflightAnswered;
      arrived = clock.now().toISOString();
      return [session('s1', { port: 10_001 })];
    };
    const { state } = slowMetaState(api);
    // What the run does before its snapshot (reading the state here) takes a minute of the clock.
    const getMeta = state.getMeta.bind(state);
    state.getMeta = async () => {
      const meta = await getMeta();
      clock.advance(60_000);
      return meta;
    };
    const summary = await runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
      ...TEST_OPTIONS,
      onlyDays: [day],
    });
    expect(listedBeforePreflightAnswered).toBe(true);
    expect(summary.active).toMatchObject({ listed: 1 });
    expect(summary.recordsNew).toBe(30);
    expect(arrived).toBeDefined();
    expect((await state.getActiveState())?.lastSnapshotAt).toBe(arrived);
  });

  it('still refuses a rejected key before anything new is written', async () => {
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    api.historyPage = async () => {
      throw new ArchiverError('AUTH_REJECTED', '401');
    };
    const objects = new MemoryObjectStore();
    const { state } = slowMetaState(api);
    await expect(runArchive(testDeps({ api, objects, state, clock }), options)).rejects.toMatchObject({
      code: 'AUTH_REJECTED',
    });
    expect(await state.getMeta()).toBeUndefined();
    const written: string[] = [];
    for await (const o of objects.list('')) written.push(o.key);
    expect(written).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { PartitionManifest } from '../../lib/archive/state/partitionManifest.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

// A day's commit (its file, manifest and state writes: no requests) overlaps the next day's walk, and a
// worker never holds more than those two days: the day after waits until the first has ended.

const clock = new ManualClock('2026-11-20T06:00:00.000Z');
const days: Day[] = [-5, -4, -3].map((n) => addDays(toDay(clock.now()), n));
const [first, second, third] = days as [Day, Day, Day];

/** A state whose manifest write for `day` waits until the test lets it through. */
function gatedManifest(day: Day): { state: MemoryStateStore; open: () => void; reached: Promise<void> } {
  const state = new MemoryStateStore();
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reachedIt: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reachedIt = resolve;
  });
  const put = state.putPartition.bind(state);
  state.putPartition = async (manifest: PartitionManifest) => {
    if (manifest.dt === day && (manifest.dataset ?? 'history') === 'history') {
      reachedIt();
      await gate;
    }
    return put(manifest);
  };
  return { state, open, reached };
}

describe('days of a run', () => {
  it("walk the next day while the day before commits, and no further: the third waits for the first's end", async () => {
    const api = new ScriptedUpstream({
      clock,
      days: new Map(days.map((d) => [d, dayOfRecords(d, 20)])),
      reshuffle: false,
    });
    const { state, open, reached } = gatedManifest(first);
    const running = runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
      ...TEST_OPTIONS,
      onlyDays: days,
      snapshotActive: false,
    });
    await reached;
    for (let i = 0; i < 50; i++) await new Promise(setImmediate);
    const asked = new Set(api.requests.map((r) => r.day));
    // The first day's manifest write is held: the second day has been walked meanwhile, the third not.
    expect(asked.has(second)).toBe(true);
    expect(asked.has(third)).toBe(false);
    open();
    const summary = await running;
    expect(summary.failedDays).toEqual([]);
    expect(summary.recordsNew).toBe(60);
    // The summary keeps the order of the due days, whatever order their commits ended in.
    expect(summary.days.map((d) => d.day)).toEqual(days);
  });

  it('a fatal error in the overlapping walk fails the run only once the day before has ended', async () => {
    const api = new ScriptedUpstream({
      clock,
      days: new Map(days.map((d) => [d, dayOfRecords(d, 20)])),
      reshuffle: false,
      beforeRequest: (day) => {
        if (day === second) throw new ArchiverError('AUTH_REJECTED', '401: key revoked');
      },
    });
    const { state, open, reached } = gatedManifest(first);
    let settled = false;
    const running = runArchive(testDeps({ api, objects: new MemoryObjectStore(), state, clock }), {
      ...TEST_OPTIONS,
      onlyDays: days,
      snapshotActive: false,
    }).finally(() => {
      settled = true;
    });
    running.catch(() => undefined);
    await reached;
    for (let i = 0; i < 50; i++) await new Promise(setImmediate);
    expect(settled).toBe(false);
    open();
    await expect(running).rejects.toMatchObject({ code: 'AUTH_REJECTED' });
    // The first day's commit ended before the run failed: its rows are in its manifest.
    expect((await state.getPartition(first, 'history'))?.files).toHaveLength(1);
    expect(api.requests.some((r) => r.day === third)).toBe(false);
  });
});

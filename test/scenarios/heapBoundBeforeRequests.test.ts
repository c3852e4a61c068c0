import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { HEAP_GROWING_PERCENT, heapGrowthBound } from '../../lib/foundation/process/relieveHeap.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

// This file's module state is its own (vitest isolates files): no bound is set before the run below.
describe('the heap bound of a run', () => {
  it('is set before the run sends its first request, not by the first bulk write beside the walk', async () => {
    const clock = new ManualClock('2026-11-20T06:00:00.000Z');
    const day = addDays(toDay(clock.now()), -2);
    const api = new ScriptedUpstream({ clock, days: new Map([[day, dayOfRecords(day, 30)]]), seed: 1 });
    const boundAtRequest: (number | undefined)[] = [];
    const history = api.historyPage.bind(api);
    api.historyPage = (...args) => {
      boundAtRequest.push(heapGrowthBound());
      return history(...args);
    };
    const list = api.listActive.bind(api);
    api.listActive = (...args) => {
      boundAtRequest.push(heapGrowthBound());
      return list(...args);
    };
    expect(heapGrowthBound()).toBeUndefined();
    const summary = await runArchive(
      testDeps({ api, objects: new MemoryObjectStore(), state: new MemoryStateStore(), clock }),
      { ...TEST_OPTIONS, onlyDays: [day] },
    );
    expect(summary.recordsNew).toBe(30);
    expect(boundAtRequest.length).toBeGreaterThan(2);
    expect(boundAtRequest.every((b) => b === HEAP_GROWING_PERCENT)).toBe(true);
  });
});

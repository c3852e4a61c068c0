import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { archivedIds, TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

describe('runArchive under a deadline budget', () => {
  it('a walk cut by the budget commits what it holds, marks the day interrupted, and asks for no page after', async () => {
    // A fake clock that moves only when the server answers a page of the one day: 1 s a page.
    const clock = new ManualClock('2026-11-20T06:00:00.000Z');
    const day: Day = addDays(toDay(clock.now()), -5);
    const api = new ScriptedUpstream({
      clock,
      days: new Map([[day, dayOfRecords(day, 200, 1_000)]]),
      maxPageSize: 10,
      reshuffle: false,
      seed: 1,
      beforeRequest: (d) => {
        if (d === day) clock.advance(1_000);
      },
    });
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    // The run may take 10.5 s; the reserve keeps the last 3 s: work stops at 7.5 s, after 8 pages.
    const budget = deadlineBudget(clock, new Date(clock.now().getTime() + 10_500), 3_000);
    const summary = await runArchive(testDeps({ api, objects, state, clock }), {
      ...TEST_OPTIONS,
      pageSize: 10,
      pageConcurrency: 1,
      onlyDays: [day],
      snapshotActive: false,
      budget,
    });
    const pagesAsked = api.requests.filter((r) => r.day === day).length;
    expect(pagesAsked).toBe(8);
    expect(summary.stoppedByDeadline).toBe(true);
    expect(summary.failedDays).toEqual([]);
    expect(summary.days).toEqual([expect.objectContaining({ day, interrupted: true, newRecords: 80 })]);
    // What the walk held is in the archive, once; the day keeps its place for the next run.
    const archive = await archivedIds(objects);
    expect(archive.total).toBe(80);
    expect(archive.distinct).toBe(80);
    expect((await state.getDay(day))?.walk).toMatchObject({ nextPage: 8 });
  });
});

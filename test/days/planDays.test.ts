import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextDayState } from '../../lib/archive/days/nextDayState.ts';
import { daysAtRisk, planDays } from '../../lib/archive/days/planDays.ts';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { addDays, type Day, dayRange, daysBetween } from '../../lib/foundation/clock/day.ts';
import { testSeed } from '../support/testSeed.ts';

const TODAY = '2026-11-21';
const base = { windowDays: 60, rescanAges: [1, 2, 3, 7, 14, 30, 45] };
const state = (day: Day, scannedAges: number[], extra: Partial<DayState> = {}): DayState => ({
  day,
  scannedAges,
  sealed: false,
  version: 1,
  ...extra,
});
const plan = (days: DayState[], today = TODAY, firstWindowStart = addDays(TODAY, -59)) =>
  planDays({ ...base, today, days: new Map(days.map((d) => [d.day, d])), firstWindowStart });

const complete = {
  complete: true,
  interrupted: false,
  totalElements: 1,
  distinctSeen: 1,
  shortfall: 0,
  quarantined: 0,
};

describe('planDays', () => {
  it('backfills the whole window oldest first on the first run', () => {
    const p = plan([]);
    expect(p.due).toHaveLength(60);
    expect(p.due[0]).toEqual({ day: '2026-09-23', age: 59, reason: 'final' });
    expect(p.due[2]).toEqual({ day: '2026-09-25', age: 57, reason: 'backfill' });
    expect(p.due.at(-1)).toEqual({ day: TODAY, age: 0, reason: 'backfill' });
    expect(p.due.map((d) => d.day)).toEqual([...p.due.map((d) => d.day)].sort());
    expect(p.newGaps).toEqual([]);
  });

  it.each([
    { age: 1, scanned: [0], due: 'rescan' },
    { age: 1, scanned: [1], due: undefined },
    { age: 5, scanned: [3], due: undefined },
    { age: 7, scanned: [3], due: 'rescan' },
    { age: 10, scanned: [3], due: 'rescan' }, // missed the age-7 run: caught up
    { age: 44, scanned: [30], due: undefined },
    { age: 45, scanned: [30], due: 'rescan' },
    { age: 57, scanned: [45], due: undefined },
    { age: 58, scanned: [45], due: 'final' },
    { age: 58, scanned: [45, 58], due: undefined }, // the first final sweep ran today
    { age: 59, scanned: [45, 58], due: 'final' }, // the second, on the last queryable day
    { age: 59, scanned: [45, 58, 59], due: 'final' }, // not sealed yet (incomplete): tried again
    { age: 59, scanned: [45], due: 'final' }, // missed the age-58 sweep: caught up
  ])('a day of age $age scanned at $scanned is due: $due', ({ age, scanned, due }) => {
    const day = addDays(TODAY, -age);
    const p = plan([state(day, scanned)]);
    expect(p.due.find((d) => d.day === day)?.reason).toBe(due);
  });

  it('never plans a sealed day', () => {
    const day = addDays(TODAY, -59);
    expect(plan([state(day, [58], { sealed: true })]).due.find((d) => d.day === day)).toBeUndefined();
  });

  it('reports days that left the window unsealed as new gaps, once', () => {
    const first = addDays(TODAY, -70);
    const gone = addDays(TODAY, -61);
    const p = plan([state(addDays(TODAY, -60), [58], { sealed: true }), state(gone, [45])], TODAY, first);
    expect(p.newGaps).toContain(gone);
    expect(p.newGaps).not.toContain(addDays(TODAY, -60));
    expect(p.newGaps).toHaveLength(10); // 70..61 minus the sealed one at 60 (not gone) -> ages 61..70
    const again = plan([state(gone, [45], { gap: true })], TODAY, first);
    expect(again.newGaps).not.toContain(gone);
  });

  it('daysAtRisk lists unsealed days in their final sweeps', () => {
    const days = new Map([[addDays(TODAY, -58), state(addDays(TODAY, -58), [58], { sealed: true })]]);
    expect(daysAtRisk(TODAY, 60, days)).toEqual([addDays(TODAY, -59)]);
    expect(daysAtRisk(TODAY, 59, days)).toEqual([addDays(TODAY, -57)]);
  });

  it('a learned shorter window moves the final sweeps and never plans the day the server refused', () => {
    const p = planDays({
      ...base,
      windowDays: 59,
      today: TODAY,
      days: new Map(),
      firstWindowStart: addDays(TODAY, -59),
    });
    expect(p.due[0]).toEqual({ day: addDays(TODAY, -58), age: 58, reason: 'final' });
    expect(p.due.find((d) => d.day === addDays(TODAY, -59))).toBeUndefined();
    expect(p.newGaps).toEqual([addDays(TODAY, -59)]);
  });

  it('puts days the deadline cut short after the others, except final sweeps', () => {
    const cut = addDays(TODAY, -40);
    const edge = addDays(TODAY, -59);
    const p = plan([state(cut, [], { deferredRuns: 1 }), state(edge, [], { deferredRuns: 2 })]);
    expect(p.due.at(-1)?.day).toBe(cut);
    expect(p.due[0]?.day).toBe(edge);
  });

  it('never plans a gap day', () => {
    const day = addDays(TODAY, -59);
    expect(plan([state(day, [], { gap: true })]).due.find((d) => d.day === day)).toBeUndefined();
  });

  it('property: through outages of days, each checkpoint interval with a run is scanned once, at its first run, and only a run on the last day seals', () => {
    // The checkpoints of a day: first sight, the rescan ages, the two final sweeps. An interval is
    // [checkpoint, next checkpoint); the last one is the last queryable age alone.
    const CHECKPOINTS = [0, ...base.rescanAges, 58, 59];
    const interval = (age: number) => CHECKPOINTS.filter((c) => c <= age).length - 1;
    fc.assert(
      fc.property(
        // Outages anywhere in 120 days of a daily schedule, each up to two weeks long, overlapping or not.
        fc.array(
          fc.record({ start: fc.integer({ min: 0, max: 119 }), length: fc.integer({ min: 1, max: 14 }) }),
          {
            maxLength: 6,
          },
        ),
        (outages) => {
          const start = '2026-01-01';
          const skipped = new Set<Day>();
          for (const o of outages)
            for (let k = 0; k < o.length; k++) skipped.add(addDays(start, o.start + k));
          const days = new Map<Day, DayState>();
          const runs: Day[] = [];
          let firstWindowStart: Day | undefined;
          for (let i = 0; i < 120; i++) {
            const today = addDays(start, i);
            if (skipped.has(today)) continue;
            runs.push(today);
            firstWindowStart ??= addDays(today, -59);
            const p = planDays({ ...base, today, days, firstWindowStart });
            for (const g of p.newGaps) days.set(g, { ...(days.get(g) ?? state(g, [])), gap: true });
            for (const d of p.due) {
              const s = days.get(d.day) ?? state(d.day, [], { version: 0 });
              days.set(
                d.day,
                nextDayState(s, { ...complete, age: d.age }, new Date(`${today}T06:00:00Z`), 60),
              );
            }
          }
          if (firstWindowStart === undefined) return;
          // Every day that has left the window by the end (and was ours: on or after the first window).
          for (const d of dayRange(firstWindowStart, addDays(start, 119 - 60))) {
            const ages = runs.map((r) => daysBetween(d, r)).filter((a) => a >= 0 && a <= 59);
            const expected: number[] = [];
            for (const age of ages)
              if (!expected.some((e) => interval(e) === interval(age))) expected.push(age);
            const s = days.get(d);
            expect(s?.scannedAges ?? [], `${d} (runs at ages ${ages.join(',')})`).toEqual(expected);
            const ranLast = ages.includes(59);
            expect(s?.sealed ?? false, d).toBe(ranLast);
            // A gap is recorded by the first run after the day left the window: none ran, none is known yet.
            const runAfter = runs.some((r) => daysBetween(d, r) >= 60);
            expect(s?.gap ?? false, d).toBe(!ranLast && runAfter);
          }
        },
      ),
      { numRuns: 200, seed: testSeed(), endOnFailure: true },
    );
  });
});

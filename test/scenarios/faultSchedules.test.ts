import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultPlan, type FaultRule } from '../../devkit/fakes/faultPlan.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream, sessionRecord } from '../../devkit/scriptedUpstream.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { ArchiveOptions } from '../../lib/archive/run/runTypes.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { archivedIds, TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { testSeed } from '../support/testSeed.ts';

const WINDOW = 8;
const OPTIONS: ArchiveOptions = { ...TEST_OPTIONS, windowDays: WINDOW, rescanAges: [1, 3] };
const OPS = [
  'putPartition',
  'putDay',
  'getPartition',
  'putFile',
  'publish',
  'get',
  'head',
  'listPartitions',
  'put',
];

const ruleArb: fc.Arbitrary<FaultRule> = fc.record({
  fault: fc.constantFrom<'lostResponse' | 'fail'>('lostResponse', 'fail'),
  op: fc.constantFrom(...OPS),
  probability: fc.double({ min: 0.05, max: 0.4, noNaN: true }),
  mode: fc.constantFrom<'unknown' | 'retry'>('unknown', 'retry'),
});

/** One day of the timeline: its faults, maybe a crash, and late sessions that arrive before it. */
const dayArb = fc.record({
  rules: fc.array(ruleArb, { maxLength: 3 }),
  crashAfter: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
  late: fc.integer({ min: 0, max: 3 }),
});

describe('runArchive under random fault schedules', () => {
  it('property: over a multi-day timeline with lost responses, failures and crashes, nothing is lost or doubled and the last run is green', async () => {
    // What was really injected across the property's runs: a property whose faults never fire proves nothing.
    const fired = { lostResponse: 0, fail: 0, crash: 0 };
    const seed = testSeed();
    await fc.assert(
      fc.asyncProperty(
        fc.array(dayArb, { minLength: 3, maxLength: 6 }),
        fc.integer({ min: 1, max: 1e6 }),
        async (timeline, seed) => {
          const clock = new ManualClock('2026-11-10T06:00:00Z');
          const start = toDay(clock.now());
          const days = new Map<Day, unknown[]>();
          let n = 0;
          for (const d of dayRange(addDays(start, -(WINDOW - 1)), addDays(start, timeline.length))) {
            days.set(d, d <= start ? dayOfRecords(d, 5, n) : []);
            n += 5;
          }
          const api = new ScriptedUpstream({ clock, days, maxPageSize: 2, windowDays: WINDOW, seed });
          const plan = new FaultPlan({ seed });
          const state = new MemoryStateStore({ faults: plan });
          const objects = new MemoryObjectStore({ faults: plan, pageSize: 7 });
          const deps = {
            api,
            state,
            objects,
            clock,
            logger: silentLogger,
            tokenKey: TEST_TOKEN_KEY,
            signer: TEST_SIGNER,
          };

          for (const [i, day] of timeline.entries()) {
            clock.set(new Date(Date.parse('2026-11-10T06:00:00Z') + i * 86_400_000));
            const today = toDay(clock.now());
            // Late arrivals: sessions of recent days that only now show up (still inside the window).
            for (let k = 0; k < day.late; k++) {
              const d = addDays(today, -((k * 3 + i) % (WINDOW - 2)));
              days
                .get(d)
                ?.push(sessionRecord(`${d}T${String(10 + k).padStart(2, '0')}:00:00Z`, 90_000 + i * 10 + k));
            }
            plan.revive().clearRules();
            for (const r of day.rules) plan.add(r);
            plan.crashAfter(day.crashAfter === undefined ? undefined : plan.steps + day.crashAfter);
            await runArchive(deps, OPTIONS).catch(() => undefined); // a faulty run may fail or "die"
            // A crashed process never released its lease: the next run comes after it expired.
            clock.advance(OPTIONS.leaseTtlMs + 1);
          }
          for (const e of plan.log)
            if (e.outcome === 'lostResponse' || e.outcome === 'fail' || e.outcome === 'crash')
              fired[e.outcome]++;
          // The last run, fault-free, is green and leaves the archive exact.
          plan.revive().clearRules().crashAfter(undefined);
          const last = await runArchive(deps, OPTIONS);
          expect(last.failedDays).toEqual([]);
          expect(last.brokenPartitions).toEqual([]);
          // Then every window day once more (late arrivals may not be due yet): still green, nothing doubled.
          const today = toDay(clock.now());
          const windowStart = addDays(today, -(WINDOW - 1));
          const sweep = await runArchive(deps, { ...OPTIONS, onlyDays: dayRange(windowStart, today) });
          expect(sweep.failedDays).toEqual([]);
          const archive = await archivedIds(objects);
          expect(archive.total).toBe(archive.distinct);
          const archived = new Set([...archive.byDt.values()].flat());
          // The archive's promise starts with the first run that recorded anything (one killed before its
          // first store write never started it): from that window on, nothing may be missing.
          const firstWindowStart = (await state.getMeta())?.firstWindowStart ?? windowStart;
          for (const [d, items] of days) {
            if (d < firstWindowStart) continue;
            const ids = items.map((x) => recordId(historyRecordSchema.parse(x), TEST_TOKEN_KEY));
            if (d >= windowStart) {
              for (const id of ids) expect(archived.has(id), `${d} ${id}`).toBe(true);
            } else {
              // A day that left the window is archived whole, or recorded as a gap: never silently short.
              const s = await state.getDay(d);
              if (!s?.gap) for (const id of ids) expect(archived.has(id), `${d} ${id}`).toBe(true);
            }
          }
          for (const id of archived)
            expect(
              [...days.values()]
                .flat()
                .some((x) => recordId(historyRecordSchema.parse(x), TEST_TOKEN_KEY) === id),
            ).toBe(true);
        },
      ),
      { numRuns: 25, seed, endOnFailure: true },
    );
    expect(fired.lostResponse, `seed ${seed}: lost responses injected`).toBeGreaterThan(0);
    expect(fired.fail, `seed ${seed}: failures injected`).toBeGreaterThan(0);
    expect(fired.crash, `seed ${seed}: crashes injected`).toBeGreaterThan(0);
  });
});

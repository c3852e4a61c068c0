import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snapshotActive } from '../../lib/archive/active/snapshotActive.ts';
import type { ActiveSession } from '../../lib/archive/records/schemas.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { testSeed } from '../support/testSeed.ts';
import { MemoryActiveState, MemoryRowSink, session, TOKEN_KEY } from './activeKit.ts';

const T0 = '2025-03-01T23:40:00.000Z';
const FIVE_MIN = 300_000;
const OPTS = { tokenPolicy: 'hash' as const, windowDays: 60, scheduleMs: FIVE_MIN };

type Fault =
  | 'none'
  | 'commitFails'
  | 'crashAfterCommit'
  | 'put1Fails'
  | 'put1Lost'
  | 'put2Fails'
  | 'put2Lost';
const FAULTS: Fault[] = [
  'none',
  'commitFails',
  'crashAfterCommit',
  'put1Fails',
  'put1Lost',
  'put2Fails',
  'put2Lost',
];

interface World {
  state: MemoryActiveState;
  sink: MemoryRowSink;
  clock: ManualClock;
  current: ActiveSession[];
}

function world(): World {
  return {
    state: new MemoryActiveState(),
    sink: new MemoryRowSink(),
    clock: new ManualClock(T0),
    current: [],
  };
}

const run = (w: World, logs: string[] = [], commitEveryMs = 0) =>
  snapshotActive(
    {
      api: { listActive: async () => w.current },
      state: w.state,
      commitRows: w.sink.commitRows,
      clock: w.clock,
      logger: { ...silentLogger, warn: (m) => logs.push(m), info: (m) => logs.push(m) },
      tokenKey: TOKEN_KEY,
    },
    { ...OPTS, commitEveryMs },
  );

/** Arms `fault` for the next run: puts are counted from the store's running total. */
/** Arms a fault for the next run; the returned function disarms what did not fire. */
function arm(w: World, fault: Fault): () => void {
  const { state, sink } = w;
  const putAt = state.puts;
  if (fault === 'commitFails') sink.failNext = true;
  if (fault === 'crashAfterCommit') sink.crashAfterNext = true;
  const origPut = state.putActiveState;
  if (fault.startsWith('put')) {
    const nth = fault.startsWith('put1') ? 1 : 2;
    state.putActiveState = async (s) => {
      if (state.puts === putAt + nth - 1) {
        if (fault.endsWith('Fails')) state.failNextPut = true;
        else state.lostNextPut = true;
        state.putActiveState = origPut;
      }
      return origPut(s);
    };
  }
  return () => {
    sink.failNext = false;
    sink.crashAfterNext = false;
    state.putActiveState = origPut;
  };
}

/** Timeline step: which of 5 ids are listed, and each listed id's version (a changed port). */
const stepArb = fc.array(fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }), {
  minLength: 5,
  maxLength: 5,
});

function snapshotOf(step: (number | undefined)[]): ActiveSession[] {
  return step.flatMap((v, i) => (v === undefined ? [] : [session(`s${i}`, { port: 10_000 + v })]));
}

describe('snapshotActive', () => {
  it.each([
    ['every snapshot', 0, 150],
    ['batches held for 15 minutes', 3 * FIVE_MIN, 60],
  ])(
    'writes every seen/changed/gone row exactly once whatever run is killed, committing %s (property)',
    async (_what, commitEveryMs, numRuns) => {
      // The runs each armed fault really killed, by fault: a property whose faults never fire proves nothing.
      const killed = new Map<Fault, number>();
      const seed = testSeed();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(stepArb, fc.constantFrom(...FAULTS)), { minLength: 1, maxLength: 12 }),
          async (timeline) => {
            const reference = world();
            const faulty = world();
            for (const [step, fault] of timeline) {
              for (const w of [reference, faulty]) {
                w.current = snapshotOf(step);
                w.clock.advance(FIVE_MIN);
              }
              await run(reference, [], commitEveryMs);
              const disarm = arm(faulty, fault);
              // The killed run is run again at once, as the next invocation would.
              let attempts = 0;
              for (;;) {
                attempts += 1;
                try {
                  await run(faulty, [], commitEveryMs);
                  break;
                } catch (error) {
                  killed.set(fault, (killed.get(fault) ?? 0) + 1);
                  // Held rows leave faults armed for a later run, so one run may meet several.
                  if (attempts > (commitEveryMs > 0 ? 8 : 2)) throw error;
                }
              }
              // Committing every snapshot, a fault that found nothing to hit (no rows to commit) is disarmed, so
              // each kill is the one its step armed; held rows instead leave faults armed for a later run.
              if (commitEveryMs === 0) disarm();
            }
            // An archiving run's snapshot commits whatever is held (faults still armed, because snapshots
            // held their rows instead of committing, may kill it: it is run again, as the next one would be).
            for (const w of [reference, faulty]) {
              w.clock.advance(FIVE_MIN);
              for (let attempt = 1; ; attempt++) {
                try {
                  await run(w);
                  break;
                } catch (error) {
                  if (attempt > 4) throw error;
                }
              }
            }
            const ids = (w: World) =>
              w.sink
                .rows()
                .map((r) => `${r.id}/${r.event}/${r.port}/${r.row_id}`)
                .sort();
            expect(ids(faulty)).toEqual(ids(reference));
            // The archive alone tells a consistent story: per id, seen → changed* → gone → seen ..., and
            // what is open at the end is exactly what the last snapshot listed.
            const byId = new Map<string, string[]>();
            const order = { seen: 0, changed: 1, gone: 2 };
            const sorted = faulty.sink
              .rows()
              .sort(
                (a, b) =>
                  a.observed_at.getTime() - b.observed_at.getTime() || order[a.event] - order[b.event],
              );
            for (const r of sorted) byId.set(r.id, [...(byId.get(r.id) ?? []), r.event]);
            const open = new Set<string>();
            for (const [id, events] of byId) {
              let isOpen = false;
              for (const e of events) {
                expect(e === 'seen' ? !isOpen : isOpen, `${id}: ${events.join(',')}`).toBe(true);
                isOpen = e !== 'gone';
              }
              if (isOpen) open.add(id);
            }
            expect([...open].sort()).toEqual(faulty.current.map((x) => x.id).sort());
            expect(faulty.state.item?.pending).toBeUndefined();
            expect(faulty.state.item?.sessions).toEqual(reference.state.item?.sessions);
          },
        ),
        { numRuns, seed, endOnFailure: true },
      );
      if (commitEveryMs > 0) {
        // A fault armed while rows were held fires in a later run: only the total is attributable.
        expect(
          [...killed.values()].reduce((a, b) => a + b, 0),
          `seed ${seed}`,
        ).toBeGreaterThan(0);
        return;
      }
      expect(killed.get('none') ?? 0, `seed ${seed}`).toBe(0);
      for (const fault of FAULTS.filter((f) => f !== 'none'))
        expect(killed.get(fault) ?? 0, `seed ${seed}: runs killed by ${fault}`).toBeGreaterThan(0);
    },
  );

  it('a crash after commit followed by a revert still records the change and keeps the archive right', async () => {
    const w = world();
    w.current = [session('a')];
    await run(w);
    w.current = [session('a', { port: 2 })];
    w.clock.advance(FIVE_MIN);
    w.sink.crashAfterNext = true;
    await expect(run(w)).rejects.toThrow('crash after commit');
    // Back to the first version before the next run: the committed change must still be followed up.
    w.current = [session('a')];
    w.clock.advance(FIVE_MIN);
    await run(w);
    expect(w.sink.rows().map((r) => `${r.event}:${r.port}`)).toEqual([
      'seen:10003',
      'changed:2',
      'changed:10003',
    ]);
  });

  it('stores the rows as pending before committing and clears them after', async () => {
    const w = world();
    w.current = [session('a')];
    const seen: (number | undefined)[] = [];
    const orig = w.state.putActiveState;
    w.state.putActiveState = async (s) => {
      seen.push(s.pending?.rows.length);
      return orig(s);
    };
    await run(w);
    expect(seen).toEqual([1, undefined]);
    await run(w); // nothing changed: one write, no pending
    expect(seen).toEqual([1, undefined, undefined]);
  });

  it('records and logs a gap longer than twice the schedule', async () => {
    const w = world();
    const logs: string[] = [];
    await run(w, logs);
    w.clock.advance(3 * FIVE_MIN);
    const result = await run(w, logs);
    expect(result.gap?.ms).toBe(3 * FIVE_MIN);
    expect(w.state.item?.gaps).toHaveLength(1);
    expect(logs).toContain('gap between active snapshots');
  });

  it('flags and logs a 70-day session', async () => {
    const w = world();
    const logs: string[] = [];
    const created = new Date(Date.parse(T0) - 70 * 86_400_000).toISOString();
    w.current = [session('old', { creationTimestamp: created }), session('new', { creationTimestamp: T0 })];
    const result = await run(w, logs);
    expect(result.longSessions.map((s) => s.id)).toEqual(['old']);
    expect(logs).toContain('long sessions: open longer than history can show');
  });

  it('a concurrent snapshot loses with CONFLICT before committing anything', async () => {
    const w = world();
    w.current = [session('a')];
    const orig = w.state.getActiveState;
    // Another run stores its state between our read and our write.
    w.state.getActiveState = async () => {
      const mine = await orig();
      w.state.item = { sessions: {}, gaps: [], version: 5 };
      return mine;
    };
    await expect(run(w)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(w.sink.rows()).toEqual([]);
  });

  it('rebuilds from the archive when the state has no active item', async () => {
    const first = world();
    first.current = [session('a'), session('b')];
    await run(first);
    const rows = first.sink.rows();
    const w = world();
    w.sink = first.sink;
    w.current = [session('a')];
    const { rebuildActiveObservations } = await import(
      '../../lib/archive/active/rebuildActiveObservations.ts'
    );
    const result = await snapshotActive(
      {
        api: { listActive: async () => w.current },
        state: w.state,
        commitRows: w.sink.commitRows,
        rebuildFromArchive: async () => rebuildActiveObservations(rows),
        clock: w.clock,
        logger: silentLogger,
        tokenKey: TOKEN_KEY,
      },
      OPTS,
    );
    expect(result.rebuilt).toBe(true);
    expect(result.events).toEqual({ seen: 0, changed: 0, gone: 1 });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import type { ActiveState } from '../../lib/archive/active/activeState.ts';
import { rebuildActiveObservations } from '../../lib/archive/active/rebuildActiveObservations.ts';
import { snapshotActive } from '../../lib/archive/active/snapshotActive.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { API_KEY, testClient } from '../upstream/testClient.ts';
import { FileRowSink, MemoryActiveState, MemoryRowSink, TOKEN_KEY } from './activeKit.ts';

const START = '2025-03-01T23:00:00.000Z';
const FIVE_MIN = 300_000;
const TICKS = 24; // two hours, across UTC midnight
const OPTS = { tokenPolicy: 'hash' as const, windowDays: 60, scheduleMs: FIVE_MIN };

type Fault = 'commitFails' | 'crashAfterCommit' | 'aheadLost' | 'clearFails' | 'listFails';
/** Ticks whose first run is killed, and how. */
const FAULTS = new Map<number, Fault>([
  [1, 'crashAfterCommit'],
  [3, 'aheadLost'],
  [5, 'clearFails'],
  [7, 'commitFails'],
  [11, 'crashAfterCommit'],
  [12, 'listFails'],
  [13, 'aheadLost'],
]);

/** The state store with a one-shot fault on its next `putActiveState` (counted within one run). */
function faultyState(real: StateStore) {
  let fault: { nth: number; lost: boolean } | undefined;
  let puts = 0;
  return {
    arm(nth: number, lost: boolean) {
      fault = { nth, lost };
      puts = 0;
    },
    getActiveState: () => real.getActiveState(),
    async putActiveState(s: ActiveState): Promise<ActiveState> {
      puts += 1;
      if (fault?.nth === puts) {
        const { lost } = fault;
        fault = undefined;
        if (!lost) throw new Error('injected: state write failed');
        await real.putActiveState(s);
        throw new Error('injected: state written, response lost');
      }
      return real.putActiveState(s);
    },
  };
}

describe('snapshotActive against the emulator', () => {
  let emulator: EmulatorHandle;
  let dynamo: DynaliteHandle;
  let dir: string;
  const emuClock = fixedClock(START);
  const clock: Clock = { now: () => emuClock.now(), sleep: async () => {} };

  beforeAll(async () => {
    [emulator, dynamo, dir] = await Promise.all([
      startEmulator({ clock: emuClock, paidKeys: [API_KEY] }),
      startDynalite(),
      mkdtemp(join(tmpdir(), 'active-')),
    ]);
  });
  afterAll(async () => {
    await Promise.all([emulator?.close(), dynamo?.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('writes seen/changed/gone exactly once over a timeline with killed runs, and the archive rebuilds the state', async () => {
    const api = testClient(emulator.url).client;
    let listFails = false;
    const faultyApi = {
      listActive: async () => {
        if (listFails) {
          listFails = false;
          throw new Error('injected: list failed');
        }
        return api.listActive();
      },
    };
    const realState = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    const state = faultyState(realState);
    const sink = new FileRowSink(dir);
    const reference = { state: new MemoryActiveState(), sink: new MemoryRowSink() };
    let killed = 0;

    for (let tick = 0; tick < TICKS; tick++) {
      await snapshotActive(
        {
          api,
          ...reference,
          commitRows: reference.sink.commitRows,
          clock,
          logger: silentLogger,
          tokenKey: TOKEN_KEY,
        },
        OPTS,
      );
      const fault = FAULTS.get(tick);
      if (fault === 'commitFails') sink.failNext = true;
      if (fault === 'crashAfterCommit') sink.crashAfterNext = true;
      if (fault === 'aheadLost') state.arm(1, true);
      if (fault === 'clearFails') state.arm(2, false);
      if (fault === 'listFails') listFails = true;
      for (let attempt = 1; ; attempt++) {
        try {
          await snapshotActive(
            {
              api: faultyApi,
              state,
              commitRows: sink.commitRows,
              clock,
              logger: silentLogger,
              tokenKey: TOKEN_KEY,
            },
            OPTS,
          );
          break;
        } catch (error) {
          killed += 1;
          if (attempt >= 2) throw error;
        }
      }
      emuClock.advance(FIVE_MIN);
    }
    expect(killed).toBe(FAULTS.size);

    const archived = await sink.rows();
    const key = (r: { id: string; event: string; row_id: string }) => `${r.id}/${r.event}/${r.row_id}`;
    expect(archived.map(key).sort()).toEqual(reference.sink.rows().map(key).sort());
    expect(new Set(archived.map((r) => r.row_id)).size).toBe(archived.length);
    const events = { seen: 0, changed: 0, gone: 0 };
    for (const r of archived) events[r.event] += 1;
    expect(events.seen).toBeGreaterThan(300);
    expect(events.gone).toBeGreaterThan(0);
    // Both dates of the timeline got a partition.
    expect(new Set(archived.map((r) => r.observed_at.toISOString().slice(0, 10)))).toEqual(
      new Set(['2025-03-01', '2025-03-02']),
    );

    const stored = await realState.getActiveState();
    expect(stored?.pending).toBeUndefined();
    expect(Object.keys(stored?.sessions ?? {}).sort()).toEqual(
      emulator
        .active()
        .map((s) => s.id)
        .sort(),
    );
    const rebuilt = rebuildActiveObservations(archived);
    const withoutLastSeen = (s: Record<string, { lastSeenAt: string }>) =>
      Object.fromEntries(Object.entries(s).map(([id, { lastSeenAt: _l, ...o }]) => [id, o]));
    expect(withoutLastSeen(rebuilt.sessions)).toEqual(withoutLastSeen(stored?.sessions ?? {}));
    expect(rebuilt.closed).toEqual(stored?.closed);
  });
});

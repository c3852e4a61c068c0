import type { EmulatorClock } from '../lib/archive/emulator/emulatorClock.ts';
import type { FaultConfig } from '../lib/archive/emulator/faults.ts';
import type { PoisonItem } from '../lib/archive/emulator/poison.ts';
import { activeList } from '../lib/archive/emulator/routes.ts';
import {
  type EmulatorModel,
  type EmulatorOptions,
  type EmulatorStats,
  startEmulator as startUserEmulator,
} from '../lib/archive/emulator/startEmulator.ts';
import { truthFor } from '../lib/archive/emulator/truthFor.ts';
import type { ActiveSession, HistoryRecord } from '../lib/archive/records/schemas.ts';

export {
  DETECTION_DEMO_DATASET,
  EMULATOR_FREE_KEY,
  EMULATOR_PAID_KEY,
  type EmulatorOptions,
  type EmulatorStats,
} from '../lib/archive/emulator/startEmulator.ts';

/** The emulator a test starts: the one a user starts, with the hooks a test reads it and steers it by. */
export interface EmulatorHandle {
  /** `http://host:port`, no trailing slash. */
  url: string;
  port: number;
  /** Stops listening and destroys open keep-alive sockets. */
  close(): Promise<void>;
  clock: EmulatorClock;
  /** Replaces the fault config; `{}` turns every fault off. */
  setFaults(faults: Partial<FaultConfig>): void;
  /** Exactly the records `history/<day>/<day>` exposes at `at` (default: now), in stable order. */
  truth(day: string, at?: Date): HistoryRecord[];
  /** The active list the API answers at `at` (default: now), in the emulator's live shape. */
  active(at?: Date): ActiveSession[];
  /** The poison items `history/<day>/<day>` serves besides the records of `truth` (empty when off). */
  poison(day: string): PoisonItem[];
  /** Requests served, by status, and the faults injected so far. */
  stats(): EmulatorStats;
}

/**
 * Starts the emulator (lib/archive/emulator/startEmulator.ts) on 127.0.0.1 port 0 unless told otherwise, and
 * reaches inside it through its `onModel` seam for the test hooks: the ground truth it serves, its
 * counters, and its faults changed while it runs.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  let model: EmulatorModel | undefined;
  const served = await startUserEmulator({
    ...options,
    onModel: (m) => {
      model = m;
      options.onModel?.(m);
    },
  });
  if (model === undefined) throw new Error('the emulator gave no model');
  const { archive, faults, stats, clock, windowDays, liveShape } = model;
  return {
    ...served,
    setFaults: (f) => faults.set(f),
    truth: (day, at) => truthFor(archive, day, at ?? clock.now(), windowDays),
    active: (at) => activeList(archive, at ?? clock.now(), liveShape),
    poison: (day) => structuredClone(archive.poison(day)),
    stats: () => ({
      requests: stats.requests,
      byStatus: { ...stats.byStatus },
      faultsInjected: { ...stats.faultsInjected },
    }),
  };
}

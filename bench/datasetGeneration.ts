import { DEFAULT_DATASET, sessionsStartingOn } from '../lib/archive/emulator/dataset.ts';
import { dayRange } from '../lib/foundation/clock/day.ts';

/**
 * How fast the emulator builds its data (moved here from unit tests, where a wall-clock threshold
 * made them depend on the machine): a cold 60-day window at the default scale (target < 1 s, best of
 * two fresh seeds), and 60 days at scale 20 (target < 4 s).
 */
export function datasetGeneration(): { coldWindowMs: number; scaled60DaysMs: number; sessions: number } {
  const days = dayRange('2024-05-01', '2024-06-29');
  const timings = [98, 99].map((seed) => {
    const t0 = performance.now();
    for (const day of days) sessionsStartingOn(seed, day);
    return performance.now() - t0;
  });
  const t0 = performance.now();
  let sessions = 0;
  for (const day of days) sessions += sessionsStartingOn(5, day, { ...DEFAULT_DATASET, scale: 20 }).length;
  return {
    coldWindowMs: Math.round(Math.min(...timings)),
    scaled60DaysMs: Math.round(performance.now() - t0),
    sessions,
  };
}

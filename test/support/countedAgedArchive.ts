import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { agedArchive } from '../../devkit/syntheticArchive.ts';
import type { ArchiveDeps } from '../../lib/archive/run/runTypes.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { countingStateStore } from './countingStateStore.ts';
import { TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from './engineKit.ts';
import { MemoryStateStore } from './fakes/memoryStateStore.ts';

/**
 * An archive `ageDays` old (`agedArchive`, the clock starting at `start`) over a scripted upstream of 12
 * records a day, in in-memory stores that count what each run sends (`objects`, `state`: reset them
 * before the run to count).
 */
export async function countedAgedArchive(start: string, ageDays: number) {
  const clock = new ManualClock(start);
  const today = toDay(clock.now());
  const days = new Map<Day, unknown[]>();
  let n = 0;
  for (const d of dayRange(addDays(today, -59), addDays(today, 2))) {
    days.set(d, dayOfRecords(d, 12, n));
    n += 12;
  }
  const objects = countingObjectStore(new MemoryObjectStore());
  const state = countingStateStore(new MemoryStateStore());
  const deps: ArchiveDeps = {
    api: new ScriptedUpstream({ clock, days, maxPageSize: 5 }),
    objects: objects.objects,
    state: state.state,
    clock,
    logger: silentLogger,
    tokenKey: TEST_TOKEN_KEY,
    signer: TEST_SIGNER,
  };
  await agedArchive(deps, clock, TEST_OPTIONS, ageDays);
  return { clock, deps, objects, state };
}

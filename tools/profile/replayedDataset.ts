import { type ReplayServer, startReplayServer } from '../../bench/replayServer.ts';
import { flatDayDataset, scaledDataset } from '../../bench/scaledDataset.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { startEmulator } from '../../lib/archive/emulator/startEmulator.ts';
import { addDays, type Day, dayRange, toDay } from '../../lib/foundation/clock/day.ts';

export interface ReplayedDataset {
  replay: ReplayServer;
  days: Day[];
  /** The argument `bench/archiverChild.ts` takes to archive these days from the replay. */
  archiverArgs: string;
  close(): Promise<void>;
}

/**
 * The pages of a profiling dataset, recorded once from the emulator and served from memory (as the bench
 * does: a profile then shows the archiver, not the emulator), 2000 rows a page, the order stable. `spec`:
 * `<records>` or `day:<records>`, one day of that many sessions three days ago; `backfill:<scale>`, the
 * 60-day backfill of `scaledDataset(scale)` (57: the bench's ~1M records).
 */
export async function startReplayedDataset(spec: string): Promise<ReplayedDataset> {
  const [kind, size] = spec.includes(':') ? spec.split(':') : ['day', spec];
  const backfill = kind === 'backfill';
  if (!(kind === 'day' || backfill) || !(Number(size) > 0))
    throw new Error(`a dataset is <records>, day:<records> or backfill:<scale>, not '${spec}'`);
  const emulator = await startEmulator({
    seed: 5,
    // Frozen: the replay records one snapshot of every day (`startReplayServer` refuses any other).
    clock: fixedClock(new Date()),
    dataset: backfill ? scaledDataset(Number(size)) : flatDayDataset(Number(size)),
    maxPageSize: 2000,
    faults: { stableOrder: true },
  });
  try {
    const today = toDay(new Date());
    const days = backfill ? dayRange(addDays(today, -59), today) : [addDays(today, -3)];
    const replay = await startReplayServer(emulator.url, days, { pageSize: 2000, concurrency: 2 });
    return {
      replay,
      days,
      archiverArgs: JSON.stringify({ url: replay.url, ...(backfill ? {} : { onlyDays: days }) }),
      close: async () => {
        await replay.close();
        await emulator.close();
      },
    };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

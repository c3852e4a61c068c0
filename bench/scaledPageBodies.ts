import { startEmulator } from '../devkit/startEmulator.ts';
import { addDays, dayRange, toDay } from '../lib/foundation/clock/day.ts';
import { fetchBound } from './fetchBound.ts';
import { scaledDataset } from './scaledDataset.ts';

/**
 * Every history page of the emulator's 60 days scaled ×`scale` (2,000 rows a page, in a stable order), fetched
 * once as the bound fetches them: the bodies the stage measurements then work on in memory.
 */
export async function scaledPageBodies(scale: number): Promise<string[]> {
  const emulator = await startEmulator({
    seed: 5,
    dataset: scaledDataset(scale),
    maxPageSize: 2000,
    faults: { stableOrder: true },
  });
  const bodies: string[] = [];
  try {
    const today = toDay(new Date());
    await fetchBound(emulator.url, dayRange(addDays(today, -59), today), {
      pageSize: 2000,
      concurrency: 2,
      onPage: (_path, body) => bodies.push(body),
    });
  } finally {
    await emulator.close();
  }
  return bodies;
}

import type { Day } from '../clock/day.ts';
import { IdSet } from '../ids/idSet.ts';
import type { KeyedRecord } from '../records/keyedRecord.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { addIdLines, gzipIdLines } from './idLines.ts';
import type { WalkSink } from './walkDay.ts';

/** Where the ids of a walk the deadline cut are kept for the next run (beside the staged files, never swept). */
export const walkIdsKey = (day: Day): string => `_staging/walks/${day}.ids.gz`;

/**
 * A walk's sink that also remembers every `record_id` the walk took, and starts from the ids an earlier
 * run's walk of the same day took: so a resumed walk counts the union of both runs (by id, never by
 * adding counts, which would count twice a row both saw), and skips rows the earlier run already wrote.
 */
export class CarriedRows implements WalkSink {
  readonly ids: IdSet;
  readonly #inner: WalkSink;

  constructor(inner: WalkSink, carried: IdSet = new IdSet()) {
    this.#inner = inner;
    this.ids = carried;
  }

  add(record: KeyedRecord): undefined | Promise<void> {
    return this.ids.add(record.id) ? this.#inner.add(record) : undefined;
  }

  expect(day: Day, total: number): void {
    this.#inner.expect?.(day, total);
  }

  get distinct(): number {
    return this.ids.size;
  }
}

/** Saves a cut walk's ids (hex lines, gzipped): overwritten by the next cut of the day, ignored once it ends. */
export async function saveWalkIds(objects: ObjectStore, day: Day, ids: IdSet): Promise<void> {
  await objects.put(walkIdsKey(day), await gzipIdLines(ids));
}

/** The ids an earlier cut walk of `day` saved, or undefined when there are none (or they cannot be read). */
export async function loadWalkIds(objects: ObjectStore, day: Day): Promise<IdSet | undefined> {
  const bytes = await objects.get(walkIdsKey(day));
  if (bytes === undefined) return undefined;
  try {
    const ids = new IdSet();
    await addIdLines(bytes, ids);
    return ids;
  } catch {
    return undefined;
  }
}

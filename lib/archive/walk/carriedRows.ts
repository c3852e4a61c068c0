import { type Day, IdSet, presizedFor } from '../../foundation/index.ts';
import type { KeyedRecord } from '../records/keyedRecord.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { addIdLines, gzipIdLines } from './idLines.ts';
import { loopTurns } from './loopTurns.ts';
import type { WalkSink } from './walkDay.ts';

/**
 * Where the ids of a walk the deadline cut are kept for the next run (beside the staged files, never
 * swept): part 0 holds the first cut's ids, part n the ids the n-th resumed run added.
 */
export const walkIdsKey = (day: Day, part = 0): string =>
  part === 0 ? `_staging/walks/${day}.ids.gz` : `_staging/walks/${day}.ids.${part}.gz`;

/**
 * Records a resumed walk keeps waiting while the earlier run's ids are read back: past it, `add` makes the
 * walk wait for the read (as many as a partition keeps waiting, see `PartitionDrafts`).
 */
const MAX_WAITING = 5_000;

/**
 * A walk's sink that also remembers every `record_id` the walk took, and starts from the ids an earlier
 * run's walk of the same day took: so a resumed walk counts the union of both runs (by id, never by
 * adding counts, which would count twice a row both saw), and skips rows the earlier run already wrote.
 *
 * The earlier ids may still be on their way (a promise): the walk's first pages go out at once, their
 * records wait here until the ids are read, and only then reach the inner sink (a record the earlier run
 * took is dropped). `settled()` resolves once they are read; `distinct` counts the union only from then
 * on, and the walk waits for it before applying its rules. Ids that cannot be read count as none: the
 * union is then smaller than the day, so the walk proves nothing from it (slower, never weaker); a store
 * that fails the read fails the walk, as any store failure does.
 */
export class CarriedRows implements WalkSink {
  #ids: IdSet;
  readonly #inner: WalkSink;
  #waiting: KeyedRecord[] | undefined;
  readonly #loaded: Promise<void>;
  /** True when the earlier run's ids were asked for and could not be read. */
  #lost = false;
  /** The ids this walk added to the earlier runs' since `takeAdded` last took them. */
  #added = new IdSet();

  constructor(inner: WalkSink, carried: IdSet | Promise<IdSet | undefined> = new IdSet()) {
    this.#inner = inner;
    if (carried instanceof IdSet) {
      this.#ids = carried;
      this.#loaded = Promise.resolve();
      return;
    }
    this.#ids = new IdSet();
    this.#waiting = [];
    this.#loaded = carried.then(async (ids) => {
      if (ids === undefined) this.#lost = true;
      else this.#ids = ids;
      // Records that arrive while the waiting ones are handed on wait too: they keep their order. Up to
      // `MAX_WAITING` of them are handed on at once, in a stretch of the walk's thread as long as that many
      // pages take: the event loop gets a turn as the walk gives it, so the answers that arrive meanwhile are
      // read and the next requests sent.
      const turn = loopTurns();
      while (this.#waiting && this.#waiting.length > 0) {
        for (const record of this.#waiting.splice(0)) {
          const wait = turn(this.#take(record));
          if (wait) await wait;
        }
      }
      this.#waiting = undefined;
    });
    // A failed read surfaces where the walk waits for it (`add` past the limit, `settled`).
    this.#loaded.catch(() => undefined);
  }

  /** Every id the walk holds (the earlier runs' and this one's); whole once `settled()` resolved. */
  get ids(): IdSet {
    return this.#ids;
  }

  /** The ids this walk took that the earlier runs had not, since this was last called (see `WalkIdParts`). */
  takeAdded(): IdSet {
    const added = this.#added;
    this.#added = new IdSet();
    return added;
  }

  /** Whether the earlier run's ids were asked for and could not be read (the union holds this run's only). */
  get lost(): boolean {
    return this.#lost;
  }

  add(record: KeyedRecord): undefined | Promise<void> {
    const waiting = this.#waiting;
    if (waiting === undefined) return this.#take(record);
    waiting.push(record);
    return waiting.length >= MAX_WAITING ? this.#loaded : undefined;
  }

  settled(): Promise<void> {
    return this.#loaded;
  }

  expect(day: Day, total: number): void {
    this.#inner.expect?.(day, total);
  }

  get distinct(): number {
    return this.#ids.size;
  }

  #take(record: KeyedRecord): undefined | Promise<void> {
    if (!this.#ids.add(record.id)) return undefined;
    this.#added.add(record.id);
    return this.#inner.add(record);
  }
}

/** Saves a cut walk's ids (hex lines, gzipped) as part 0: overwritten by the next first cut of the day. */
export async function saveWalkIds(objects: ObjectStore, day: Day, ids: IdSet): Promise<void> {
  await objects.put(walkIdsKey(day), await gzipIdLines(ids));
}

/**
 * A walk's ids saved part by part as it goes, so that a cut writes only what the walk took since the last
 * part, never the day's ids again. Part 0 starts a walk that did not resume (or could not read the earlier
 * ids: its union is its own); a resumed walk goes on after the parts its day state records. A part is
 * read back only once a day state records it, so a part a crash left unrecorded is overwritten.
 */
export class WalkIdParts {
  readonly #objects: ObjectStore;
  readonly #day: Day;
  readonly #sink: CarriedRows;
  readonly #resumedParts: number | undefined;
  #next: number | undefined;

  /** `resumedParts`: the parts after part 0 the resumed walk's state records (absent: not resumed). */
  constructor(objects: ObjectStore, day: Day, sink: CarriedRows, resumedParts: number | undefined) {
    this.#objects = objects;
    this.#day = day;
    this.#sink = sink;
    this.#resumedParts = resumedParts;
  }

  /**
   * Saves the ids taken since the last part as the next part (none new: nothing, unless `always`; the walk's
   * first part is written even empty). Called once the sink settled.
   */
  async save(always = false): Promise<void> {
    if (this.#next === undefined)
      this.#next = this.#resumedParts === undefined || this.#sink.lost ? 0 : this.#resumedParts + 1;
    const first = this.#next === 0;
    const ids = this.#sink.takeAdded();
    if (ids.size === 0 && !always && !first) return;
    const part = this.#next++;
    await this.#objects.put(
      walkIdsKey(this.#day, part),
      await gzipIdLines(part === 0 ? this.#sink.ids : ids),
    );
  }

  /** The parts after part 0 saved so far (what the day state records for the next run). */
  get parts(): number {
    return Math.max(0, (this.#next ?? 1) - 1);
  }
}

/**
 * The ids earlier cut walks of `day` saved (part 0 and `parts` parts after it), or undefined when there
 * are none (or one cannot be read). The parts are read one after the other, beside the walk's fetching
 * (what a run has asked the store for when it sends its first request does not grow with the day's
 * parts). `expected`: the day's rows as its totals said, so the set (which the resumed walk goes on
 * filling) is made once for the day, not grown while it is read and again while the walk adds to it.
 */
export async function loadWalkIds(
  objects: ObjectStore,
  day: Day,
  parts = 0,
  expected = 0,
): Promise<IdSet | undefined> {
  const ids = new IdSet(presizedFor(expected));
  for (let part = 0; part <= parts; part++) {
    const bytes = await objects.get(walkIdsKey(day, part));
    if (bytes === undefined) return undefined;
    try {
      await addIdLines(bytes, ids);
    } catch {
      return undefined;
    }
  }
  return ids;
}

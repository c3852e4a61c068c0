import { IdSet, presizedFor } from '../../foundation/index.ts';
import type { ServedInPass } from './passVerdict.ts';

/**
 * The records one pass served, counted by id (a `record_id`, or a quarantined item's raw id): how many
 * distinct, and which came more than once. A walk counts a pass only after one that added nothing short of
 * the rows its pages prove (`passVerdict`), so the set of a whole day's ids is held only then.
 */
export class ServedIds implements ServedInPass {
  readonly #ids: IdSet;
  readonly #twice = new Map<string, number>();

  /** `expected`: the records the walk holds, which a counted pass serves (at least). */
  constructor(expected: number) {
    this.#ids = new IdSet(presizedFor(expected));
  }

  /** Counts one served record. */
  note(id: string): void {
    if (!this.#ids.add(id)) this.#twice.set(id, (this.#twice.get(id) ?? 0) + 1);
  }

  get distinct(): number {
    return this.#ids.size;
  }

  /** Each id served more than once, with its extra copies. */
  get twice(): ReadonlyMap<string, number> {
    return this.#twice;
  }
}

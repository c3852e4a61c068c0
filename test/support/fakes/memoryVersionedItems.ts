import { versionConflict } from '../../../lib/state/versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from '../../../lib/state/versionedItems.ts';

/**
 * The versioned-item primitive in memory, with DynamoDB's semantics (a put conditioned on the version
 * read; `CONFLICT` otherwise). Items are kept as the JSON DynamoDB's `data` attribute holds, so a stored
 * entity is validated when read, as on the table.
 */
export class MemoryVersionedItems implements VersionedItems {
  readonly where = 'in memory';
  readonly #items = new Map<string, { version: number; data: string }>();

  async get(pk: string): Promise<VersionedItem | undefined> {
    return this.peek(pk);
  }

  async put(pk: string, version: number, data: string): Promise<void> {
    const stored = this.#items.get(pk);
    const ok = version === 0 ? stored === undefined : stored?.version === version;
    if (!ok) throw versionConflict(pk, version);
    this.#items.set(pk, { version: version + 1, data });
  }

  async delete(pk: string): Promise<void> {
    this.#items.delete(pk);
  }

  async query(prefix: string): Promise<VersionedItem[]> {
    return [...this.#items.keys()]
      .filter((pk) => pk.startsWith(prefix))
      .map((pk) => this.peek(pk) as VersionedItem);
  }

  // ---- test helpers ----

  /** The item as stored, synchronously. */
  peek(pk: string): VersionedItem | undefined {
    const item = this.#items.get(pk);
    return item === undefined ? undefined : { pk, ...item };
  }

  /** Every item, by key. */
  all(): VersionedItem[] {
    return [...this.#items.keys()].sort().map((pk) => this.peek(pk) as VersionedItem);
  }

  /** Writes raw `data` under `pk`, bypassing versions. */
  setRaw(pk: string, data: string, version: number): void {
    this.#items.set(pk, { version, data });
  }

  clear(): void {
    this.#items.clear();
  }
}

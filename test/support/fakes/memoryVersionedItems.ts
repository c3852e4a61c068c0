import { versionConflict } from '../../../lib/archive/state/versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from '../../../lib/archive/state/versionedItems.ts';

/**
 * The versioned-item primitive in memory, with DynamoDB's semantics (a put conditioned on the version
 * read; `CONFLICT` otherwise). Items are kept as the JSON DynamoDB's `data` attribute holds (and a copy of
 * their `bytes`), so a stored entity is validated when read, as on the table.
 */
export class MemoryVersionedItems implements VersionedItems {
  readonly where = 'in memory';
  readonly #items = new Map<string, { version: number; data: string; bytes?: Uint8Array }>();

  async get(pk: string): Promise<VersionedItem | undefined> {
    return this.peek(pk);
  }

  async getMany(pks: readonly string[]): Promise<VersionedItem[]> {
    return [...new Set(pks)]
      .map((pk) => this.peek(pk))
      .filter((item): item is VersionedItem => item !== undefined);
  }

  async put(pk: string, version: number, data: string, bytes?: Uint8Array): Promise<void> {
    const stored = this.#items.get(pk);
    if ((stored?.version ?? 0) !== version) throw versionConflict(pk, version);
    this.#items.set(pk, {
      version: version + 1,
      data,
      ...(bytes === undefined ? {} : { bytes: bytes.slice() }),
    });
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

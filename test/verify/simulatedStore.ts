import { createHash } from 'node:crypto';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { ReadRanges } from '../../devkit/readRanges.ts';
import type { ObjectInfo, ObjectStore, StoredChecksum } from '../../lib/archive/store/objectStore.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * An in-memory store with what S3 keeps beside each object: the time it was written (by the store's
 * clock, here a simulated one) and, when `checksums` is on, its full-object SHA-256 computed at write
 * time. It records which objects were checked (every byte read, or their stored checksum asked for: a
 * partial read, such as a footer, is not a check), and lets a test change an object as an attacker with
 * write access would.
 */
export class SimulatedStore implements ObjectStore {
  readonly inner = new MemoryObjectStore();
  readonly url = this.inner.url;
  readonly #meta = new Map<string, { at: Date; sha?: string }>();
  /** Keys whose stored checksum was asked for since the last `takeChecked()`. */
  #checksummed = new Set<string>();
  /** The byte ranges read of each key since the last `takeChecked()`, and each key's size when read. */
  #read = new ReadRanges();
  #sizes = new Map<string, number>();
  storedChecksum?: (key: string) => Promise<StoredChecksum | undefined>;

  constructor(
    private readonly clock: Clock,
    checksums: boolean,
  ) {
    if (checksums) {
      this.storedChecksum = async (key) => {
        const info = await this.inner.head(key);
        if (!info) return undefined;
        this.#checksummed.add(key);
        const s = this.#meta.get(key)?.sha;
        return s === undefined ? { size: info.size } : { size: info.size, sha256: s };
      };
    }
  }

  /** Keys checked since the last call: their stored checksum asked for, or every one of their bytes read. */
  takeChecked(): Set<string> {
    const out = new Set(this.#checksummed);
    for (const key of this.#read.keys()) if (this.#read.covered(key) === this.#sizes.get(key)) out.add(key);
    this.#checksummed = new Set();
    this.#read.clear();
    this.#sizes.clear();
    return out;
  }

  #readOf(key: string, start: number, bytes: Uint8Array | undefined, size: number | undefined): void {
    if (bytes === undefined || size === undefined) return;
    this.#read.add(key, start, bytes.byteLength);
    this.#sizes.set(key, size);
  }

  async #wrote(key: string): Promise<void> {
    const bytes = await this.inner.get(key);
    if (bytes) this.#meta.set(key, { at: this.clock.now(), sha: sha(bytes) });
  }

  /** Replaces an object's bytes; `keepDate` as a store whose dates can be set back (a file's mtime). */
  async tamper(key: string, change: (b: Uint8Array) => Uint8Array, keepDate: boolean): Promise<void> {
    const before = this.#meta.get(key);
    const bytes = change((await this.inner.get(key)) as Uint8Array);
    await this.inner.put(key, bytes);
    this.#meta.set(key, { at: keepDate && before ? before.at : this.clock.now(), sha: sha(bytes) });
  }

  async remove(key: string): Promise<void> {
    await this.inner.deleteStaging(key);
    this.#meta.delete(key);
  }

  async putFile(key: string, path: string) {
    const n = await this.inner.putFile(key, path);
    await this.#wrote(key);
    return n;
  }
  async put(key: string, body: Uint8Array | string) {
    const n = await this.inner.put(key, body);
    await this.#wrote(key);
    return n;
  }
  async putIfAbsent(key: string, body: Uint8Array | string) {
    const done = await this.inner.putIfAbsent(key, body);
    if (done) await this.#wrote(key);
    return done;
  }
  async get(key: string) {
    const bytes = await this.inner.get(key);
    this.#readOf(key, 0, bytes, bytes?.byteLength);
    return bytes;
  }
  async getRange(key: string, start: number, end: number) {
    const bytes = await this.inner.getRange(key, start, end);
    this.#readOf(key, start, bytes, (await this.inner.head(key))?.size);
    return bytes;
  }
  async head(key: string) {
    const o = await this.inner.head(key);
    const at = this.#meta.get(key)?.at;
    return o && at ? { ...o, modifiedAt: at } : o;
  }
  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    for await (const o of this.inner.list(prefix)) {
      const at = this.#meta.get(o.key)?.at;
      yield at ? { ...o, modifiedAt: at } : o;
    }
  }
  async publish(from: string, to: string) {
    await this.inner.publish(from, to);
    await this.#wrote(to);
  }
  deleteStaging(key: string) {
    return this.inner.deleteStaging(key);
  }
}

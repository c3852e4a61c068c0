import { createHash } from 'node:crypto';
import type { Clock } from '../../lib/clock/clock.ts';
import type { ObjectInfo, ObjectStore, StoredChecksum } from '../../lib/store/objectStore.ts';
import { MemoryObjectStore } from '../support/fakes/memoryObjectStore.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * An in-memory store with what S3 keeps beside each object: the time it was written (by the store's
 * clock, here a simulated one) and, when `checksums` is on, its full-object SHA-256 computed at write
 * time. It records which objects were read or had their checksum asked for, and lets a test change an
 * object as an attacker with write access would.
 */
export class SimulatedStore implements ObjectStore {
  readonly inner = new MemoryObjectStore();
  readonly url = this.inner.url;
  readonly #meta = new Map<string, { at: Date; sha?: string }>();
  /** Keys whose bytes or checksum were looked at since the last `takeChecked()`. */
  #checked = new Set<string>();
  storedChecksum?: (key: string) => Promise<StoredChecksum | undefined>;

  constructor(
    private readonly clock: Clock,
    checksums: boolean,
  ) {
    if (checksums) {
      this.storedChecksum = async (key) => {
        const info = await this.inner.head(key);
        if (!info) return undefined;
        this.#checked.add(key);
        const s = this.#meta.get(key)?.sha;
        return s === undefined ? { size: info.size } : { size: info.size, sha256: s };
      };
    }
  }

  takeChecked(): Set<string> {
    const out = this.#checked;
    this.#checked = new Set();
    return out;
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
    this.#checked.add(key);
    return this.inner.get(key);
  }
  async getRange(key: string, start: number, end: number) {
    this.#checked.add(key);
    return this.inner.getRange(key, start, end);
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

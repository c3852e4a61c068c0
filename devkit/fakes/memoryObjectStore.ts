import { readFile } from 'node:fs/promises';
import { assertObjectKey, storeFailed } from '../../lib/archive/store/objectKey.ts';
import type { ObjectInfo, ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { writeOnceConflict } from '../../lib/archive/store/writeOnceConflict.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { FaultPlan } from './faultPlan.ts';

export interface MemoryObjectStoreOptions {
  /** Fault plan shared with other fakes (default: none). */
  faults?: FaultPlan;
  /** Label of this fake in the plan (default `object`). */
  name?: string;
  /** Keys per listing page (the fake pages like S3 does; default 1000). */
  pageSize?: number;
}

let instances = 0;

/**
 * In-memory {@link ObjectStore} with the documented semantics: atomic puts, listings in key order across
 * pages, `publish` that is idempotent and never overwrites, `deleteStaging` that accepts absent keys.
 * Every call goes through a {@link FaultPlan} (`list` when its iteration starts).
 */
export class MemoryObjectStore implements ObjectStore {
  readonly url: string;
  /** Replace to change the faults of later calls. */
  faults: FaultPlan;
  readonly name: string;
  readonly #pageSize: number;
  readonly #objects = new Map<string, Uint8Array>();

  constructor(options: MemoryObjectStoreOptions = {}) {
    this.faults = options.faults ?? FaultPlan.none();
    this.name = options.name ?? 'object';
    this.#pageSize = options.pageSize ?? 1000;
    this.url = `memory://store-${++instances}/`;
  }

  putFile(key: string, localPath: string): Promise<number> {
    return this.#run('putFile', [key, localPath], async () => {
      assertObjectKey(key);
      let body: Uint8Array;
      try {
        body = new Uint8Array(await readFile(localPath));
      } catch (error) {
        throw storeFailed(`cannot upload '${localPath}' as '${key}'`, error);
      }
      this.#objects.set(key, body);
      return body.length;
    });
  }

  put(key: string, body: Uint8Array | string): Promise<number> {
    return this.#run('put', [key], async () => {
      assertObjectKey(key);
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
      this.#objects.set(key, bytes);
      return bytes.length;
    });
  }

  putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean> {
    return this.#run('putIfAbsent', [key], async () => {
      assertObjectKey(key);
      if (this.#objects.has(key)) return false;
      this.#objects.set(
        key,
        typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body),
      );
      return true;
    });
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#run('get', [key], async () => {
      assertObjectKey(key);
      const body = this.#objects.get(key);
      return body === undefined ? undefined : new Uint8Array(body);
    });
  }

  getRange(key: string, start: number, end: number): Promise<Uint8Array | undefined> {
    return this.#run('getRange', [key], async () => {
      assertObjectKey(key);
      const body = this.#objects.get(key);
      return body === undefined ? undefined : body.slice(start, end);
    });
  }

  head(key: string): Promise<ObjectInfo | undefined> {
    return this.#run('head', [key], async () => {
      assertObjectKey(key);
      const body = this.#objects.get(key);
      return body === undefined ? undefined : { key, size: body.length };
    });
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    const keys = await this.#run('list', [prefix], async () =>
      [...this.#objects.keys()].filter((k) => k.startsWith(prefix)).sort(byKey),
    );
    // Page by page, like S3: each page is read when the caller gets there (a key written in between
    // after the cursor shows up; one before it does not).
    let after: string | undefined;
    let page = keys.slice(0, this.#pageSize);
    while (page.length > 0) {
      for (const key of page) {
        const body = this.#objects.get(key);
        if (body !== undefined) yield { key, size: body.length };
        after = key;
      }
      const cursor = after;
      page = [...this.#objects.keys()]
        .filter((k) => k.startsWith(prefix) && cursor !== undefined && k > cursor)
        .sort(byKey)
        .slice(0, this.#pageSize);
      if (page.length === 0) break;
    }
  }

  publish(fromKey: string, toKey: string): Promise<void> {
    return this.#run('publish', [fromKey, toKey], async () => {
      assertObjectKey(fromKey);
      assertObjectKey(toKey);
      const from = this.#objects.get(fromKey);
      if (from === undefined) {
        if (this.#objects.has(toKey)) return; // a repeated publish
        throw new ArchiverError('STORE_FAILED', `cannot publish '${fromKey}': it does not exist`, {
          retryable: false,
        });
      }
      // Never overwrite: an existing target with our bytes ends the publish; other bytes fail loudly.
      const existing = this.#objects.get(toKey);
      if (existing === undefined) this.#objects.set(toKey, from);
      else if (Buffer.compare(Buffer.from(existing), Buffer.from(from)) !== 0)
        throw writeOnceConflict(fromKey, toKey);
      this.#objects.delete(fromKey);
    });
  }

  deleteStaging(key: string): Promise<void> {
    return this.#run('deleteStaging', [key], async () => {
      assertObjectKey(key);
      this.#objects.delete(key);
    });
  }

  async close(): Promise<void> {}

  // ---- test helpers (no faults, no steps) ----

  /** All keys, sorted. */
  keys(prefix = ''): string[] {
    return [...this.#objects.keys()].filter((k) => k.startsWith(prefix)).sort(byKey);
  }

  /** The stored bytes of `key` (no copy), or `undefined`. */
  peek(key: string): Uint8Array | undefined {
    return this.#objects.get(key);
  }

  /** Replaces or removes (`undefined`) an object directly: tampering, lifecycle expiry, lost files. */
  poke(key: string, body: Uint8Array | string | undefined): void {
    if (body === undefined) this.#objects.delete(key);
    else this.#objects.set(key, typeof body === 'string' ? new TextEncoder().encode(body) : body);
  }

  #run<T>(op: string, args: readonly unknown[], apply: () => Promise<T>): Promise<T> {
    return this.faults.run(this.name, op, args, apply);
  }
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

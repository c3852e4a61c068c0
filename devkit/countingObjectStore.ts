import type { ObjectStore } from '../lib/archive/store/objectStore.ts';
import { ReadRanges } from './readRanges.ts';

/** Requests by method, and bytes read (`get`, `getRange`), of an object store. */
export interface StoreCounts {
  requests: number;
  byMethod: Record<string, number>;
  bytesRead: number;
  /** The keys read (`get`, `getRange`), each once. */
  keysRead: Set<string>;
  /** The byte ranges read of each key: how many of its bytes, and which. */
  read: ReadRanges;
}

/**
 * An object store that counts what goes through it: every call of a method (a listing counts one per
 * 1,000 keys, as S3 pages them) and the bytes read. `reset()` starts a new count.
 */
export function countingObjectStore(inner: ObjectStore): {
  objects: ObjectStore;
  counts: StoreCounts;
  reset(): void;
} {
  const counts: StoreCounts = {
    requests: 0,
    byMethod: {},
    bytesRead: 0,
    keysRead: new Set(),
    read: new ReadRanges(),
  };
  const tick = (method: string, n = 1) => {
    counts.requests += n;
    counts.byMethod[method] = (counts.byMethod[method] ?? 0) + n;
  };
  const objects: ObjectStore = {
    url: inner.url,
    putFile: (k, p) => {
      tick('putFile');
      return inner.putFile(k, p);
    },
    put: (k, b) => {
      tick('put');
      return inner.put(k, b);
    },
    putIfAbsent: (k, b) => {
      tick('putIfAbsent');
      return inner.putIfAbsent(k, b);
    },
    get: async (k) => {
      tick('get');
      counts.keysRead.add(k);
      const bytes = await inner.get(k);
      counts.bytesRead += bytes?.byteLength ?? 0;
      counts.read.add(k, 0, bytes?.byteLength ?? 0);
      return bytes;
    },
    getRange: async (k, s, e) => {
      tick('getRange');
      counts.keysRead.add(k);
      const bytes = await inner.getRange(k, s, e);
      counts.bytesRead += bytes?.byteLength ?? 0;
      counts.read.add(k, s, bytes?.byteLength ?? 0);
      return bytes;
    },
    head: (k) => {
      tick('head');
      return inner.head(k);
    },
    async *list(prefix) {
      let n = 0;
      tick('list');
      for await (const o of inner.list(prefix)) {
        if (++n % 1000 === 0) tick('list');
        yield o;
      }
    },
    publish: (a, b) => {
      tick('publish');
      return inner.publish(a, b);
    },
    deleteStaging: (k) => {
      tick('deleteStaging');
      return inner.deleteStaging(k);
    },
    ...(inner.storedChecksum
      ? {
          storedChecksum: (k: string) => {
            tick('storedChecksum');
            return inner.storedChecksum?.(k) ?? Promise.resolve(undefined);
          },
        }
      : {}),
    ...(inner.close ? { close: () => inner.close?.() ?? Promise.resolve() } : {}),
  };
  return {
    objects,
    counts,
    reset() {
      counts.requests = 0;
      counts.bytesRead = 0;
      counts.byMethod = {};
      counts.keysRead = new Set();
      counts.read = new ReadRanges();
    },
  };
}

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ObjectStore } from '../lib/archive/store/objectStore.ts';

/**
 * What S3 does with the SHA-256 every write now carries, for an S3-compatible server that ignores it
 * (s3rver): the full-object checksum of each object written through this store, kept in a JSON file
 * between processes, and answered by `storedChecksum` with the server's HEAD (one request, no bytes).
 */
export function checksumKeepingStore(
  inner: ObjectStore,
  file: string,
): { objects: ObjectStore; save(): void } {
  const sums = new Map<string, string>(
    existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as [string, string][]) : [],
  );
  const note = async (key: string) => {
    const bytes = await inner.get(key);
    if (bytes) sums.set(key, createHash('sha256').update(bytes).digest('hex'));
  };
  const objects: ObjectStore = {
    url: inner.url,
    putFile: async (k, p) => {
      const n = await inner.putFile(k, p);
      sums.set(k, createHash('sha256').update(readFileSync(p)).digest('hex'));
      return n;
    },
    put: async (k, b) => {
      const n = await inner.put(k, b);
      sums.set(k, createHash('sha256').update(b).digest('hex'));
      return n;
    },
    putIfAbsent: async (k, b) => {
      const done = await inner.putIfAbsent(k, b);
      if (done) sums.set(k, createHash('sha256').update(b).digest('hex'));
      return done;
    },
    get: (k) => inner.get(k),
    getRange: (k, s, e, into) => inner.getRange(k, s, e, into),
    head: (k) => inner.head(k),
    list: (p) => inner.list(p),
    publish: async (a, b) => {
      const sum = sums.get(a);
      await inner.publish(a, b);
      if (sum) sums.set(b, sum);
      else await note(b);
    },
    deleteStaging: (k) => inner.deleteStaging(k),
    storedChecksum: async (k) => {
      const info = await inner.head(k);
      if (!info) return undefined;
      const sha256 = sums.get(k);
      return sha256 ? { size: info.size, sha256 } : { size: info.size };
    },
  };
  return { objects, save: () => writeFileSync(file, JSON.stringify([...sums])) };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectInfo } from '../../lib/archive/store/objectStore.ts';

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<string[]> {
  const out: string[] = [];
  for await (const info of iterable) out.push(info.key);
  return out;
}

describe('createFileObjectStore listing order', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'file-store-order-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lists in key order where a folder and a file name share a start (a-b before a/x)', async () => {
    const store = createFileObjectStore(root);
    // '-' and '.' sort before '/', '0' after it: a folder is not simply its name in the order.
    const keys = ['k/a/x', 'k/a-b', 'k/a.c', 'k/a0', 'k/a/y/z', 'k/b', 'k/a/y-1', 'k/_m'];
    for (const key of keys) await store.put(key, key);
    expect(await collect(store.list('k/'))).toEqual([...keys].sort());
    expect(await collect(store.list('k/a'))).toEqual(keys.filter((k) => k.startsWith('k/a')).sort());
  });

  it('walks as it yields: a caller that stops after the first key has the oldest partition', async () => {
    const store = createFileObjectStore(root);
    await store.put('h/dt=2024-01-02/b.parquet', 'b');
    await store.put('h/dt=2024-01-01/a.parquet', 'a');
    const listing = store.list('h/')[Symbol.asyncIterator]();
    expect((await listing.next()).value?.key).toBe('h/dt=2024-01-01/a.parquet');
    // The later partition's folder is read only when the walk reaches it: a key written there now is listed.
    await store.put('h/dt=2024-01-02/c.parquet', 'c');
    const rest: string[] = [];
    for (let n = await listing.next(); !n.done; n = await listing.next()) rest.push(n.value.key);
    expect(rest).toEqual(['h/dt=2024-01-02/b.parquet', 'h/dt=2024-01-02/c.parquet']);
  });
});

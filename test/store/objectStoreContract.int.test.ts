import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { startS3rver } from '../../devkit/startS3rver.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectInfo, ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { startWriteOnceFront } from '../support/writeOnceS3Front.ts';

/** The same behaviour is required of every ObjectStore adapter: one table of cases, run for each. */
interface Subject {
  store: ObjectStore;
  close(): Promise<void>;
}

const adapters: { name: string; start: () => Promise<Subject> }[] = [
  {
    name: 'createFileObjectStore',
    start: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'file-store-'));
      return { store: createFileObjectStore(dir), close: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'createS3ObjectStore',
    start: async () => {
      const s3 = await startS3rver();
      return {
        store: createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'tenant/archive' }),
        close: s3.close,
      };
    },
  },
  {
    // Behind a front that enforces If-None-Match as S3 does (s3rver alone ignores it): the contract holds
    // with the header enforced. The 412 and 409 branches themselves run in writeOnceRace.int.test.ts, where
    // the front creates the target between a writer's check and its write.
    name: 'createS3ObjectStore behind a write-once S3 front',
    start: async () => {
      const s3 = await startS3rver();
      const front = await startWriteOnceFront(s3);
      return {
        store: createS3ObjectStore({ client: front.client, bucket: s3.bucket, prefix: 'tenant/archive' }),
        close: async () => {
          await front.close();
          await s3.close();
        },
      };
    },
  },
  {
    // The in-memory fake the recovery tests use must keep the same contract (small pages: paging is exercised).
    name: 'MemoryObjectStore',
    start: async () => ({ store: new MemoryObjectStore({ pageSize: 100 }), close: async () => {} }),
  },
];

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const info of iterable) out.push(info);
  return out;
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

const text = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : new TextDecoder().decode(bytes);

describe.each(adapters)('$name (ObjectStore contract)', ({ start }) => {
  let subject: Subject;
  let store: ObjectStore;
  let scratch: string;

  beforeAll(async () => {
    subject = await start();
    store = subject.store;
    scratch = await mkdtemp(path.join(tmpdir(), 'store-src-'));
  });
  afterAll(async () => {
    await subject?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it.each([
    ['a string', 'hello, archive', 14],
    ['bytes', new Uint8Array([0, 1, 2, 255]), 4],
    ['an empty body', '', 0],
  ])('puts and gets back %s', async (_label, body, size) => {
    const key = `roundtrip/${size}.bin`;
    expect(await store.put(key, body)).toBe(size);
    const expected = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    expect(await store.get(key)).toEqual(expected);
    // The store's time of the object, where it keeps one (S3 LastModified, a file's mtime).
    const info = await store.head(key);
    expect(info).toEqual({ key, size, ...(info?.modifiedAt ? { modifiedAt: expect.any(Date) } : {}) });
  });

  it('reads byte ranges, short at the end of the object, undefined when absent', async () => {
    const body = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
    await store.put('range/body.bin', body);
    expect(await store.getRange('range/body.bin', 0, 10)).toEqual(body.slice(0, 10));
    expect(await store.getRange('range/body.bin', 990, 1000)).toEqual(body.slice(990));
    expect(await store.getRange('range/body.bin', 995, 2000)).toEqual(body.slice(995));
    expect(await store.getRange('range/body.bin', 500, 500)).toEqual(new Uint8Array());
    expect(await store.getRange('range/absent.bin', 0, 10)).toBeUndefined();
  });

  it('reads a range into a buffer it is given: the same bytes, whatever the store does with the buffer', async () => {
    const body = Uint8Array.from({ length: 1000 }, (_, i) => (i * 11) % 256);
    await store.put('range/into.bin', body);
    const buffer = new Uint8Array(64);
    expect(await store.getRange('range/into.bin', 100, 164, buffer)).toEqual(body.slice(100, 164));
    // The buffer is reused for the next range; a short range at the end is short.
    expect(await store.getRange('range/into.bin', 980, 1044, buffer)).toEqual(body.slice(980));
    // A buffer too small for the range is not used: the whole range still comes back.
    expect(await store.getRange('range/into.bin', 0, 200, new Uint8Array(8))).toEqual(body.slice(0, 200));
    expect(await store.getRange('range/absent.bin', 0, 10, buffer)).toBeUndefined();
  });

  it('answers undefined for an absent key on get and head', async () => {
    expect(await store.get('absent/nothing.parquet')).toBeUndefined();
    expect(await store.head('absent/nothing.parquet')).toBeUndefined();
  });

  it.each(['../escape', '/absolute', 'a//b', 'a/./b', ''])('rejects the invalid key %j', async (key) => {
    await expect(store.put(key, 'x')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('lists more than one listing page (1005 keys) in key order', async () => {
    const keys = Array.from(
      { length: 1005 },
      (_, i) => `many/dt=2024-01-01/part-${String(i).padStart(5, '0')}.parquet`,
    );
    await inBatches(keys, 32, (key) => store.put(key, 'x'));
    const listed = await collect(store.list('many/'));
    expect(listed.map((o) => o.key)).toEqual(keys);
    expect(listed.every((o) => o.size === 1)).toBe(true);
  });

  it('lists by Hive partition prefix, including partial prefixes', async () => {
    const keys = [
      'hive/dt=2024-05-01/a.parquet',
      'hive/dt=2024-05-02/b.parquet',
      'hive/dt=2024-06-01/c.parquet',
    ];
    await inBatches(keys, 8, (key) => store.put(key, key));
    const keysOf = async (prefix: string) => (await collect(store.list(prefix))).map((o) => o.key);
    expect(await keysOf('hive/dt=2024-05-02/')).toEqual(['hive/dt=2024-05-02/b.parquet']);
    expect(await keysOf('hive/dt=2024-05-')).toEqual(keys.slice(0, 2));
    expect(await keysOf('hive/')).toEqual(keys);
    expect(await keysOf('hive/dt=2023-')).toEqual([]);
    expect(await keysOf('nowhere/')).toEqual([]);
  });

  it('lists exactly the keys written under a prefix (property)', async () => {
    let run = 0;
    const segment = fc.constantFrom('a', 'b', 'dt=2024-01-01', 'dt=2024-01-02', 'x.parquet');
    const key = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(key, { minLength: 1, maxLength: 8 }), segment, async (keys, probe) => {
        // A key must not also be a "folder" of another key on a file system: keep only leaves.
        const leaves = keys.filter((k) => !keys.some((other) => other.startsWith(`${k}/`)));
        const root = `prop/${run++}/`;
        await Promise.all(leaves.map((k) => store.put(`${root}${k}`, k)));
        const listed = (await collect(store.list(`${root}${probe}`))).map((o) => o.key.slice(root.length));
        expect(listed).toEqual(leaves.filter((k) => k.startsWith(probe)).sort());
      }),
      { numRuns: 15 },
    );
  });

  it('uploads a large file byte for byte', async () => {
    const source = path.join(scratch, 'big.parquet');
    const content = randomBytes(12 * 1024 * 1024);
    await writeFile(source, content);
    const key = 'upload/dt=2024-02-02/big.parquet';
    expect(await store.putFile(key, source)).toBe(content.length);
    const info = await store.head(key);
    expect(info).toEqual({
      key,
      size: content.length,
      ...(info?.modifiedAt ? { modifiedAt: expect.any(Date) } : {}),
    });
    const back = await store.get(key);
    expect(
      createHash('sha256')
        .update(back ?? new Uint8Array())
        .digest('hex'),
    ).toBe(createHash('sha256').update(content).digest('hex'));
  });

  it('fails putFile of a missing source with STORE_FAILED and leaves the key absent', async () => {
    const key = 'atomic/missing.parquet';
    await expect(store.putFile(key, path.join(scratch, 'no-such-file'))).rejects.toMatchObject({
      code: 'STORE_FAILED',
    });
    expect(await store.head(key)).toBeUndefined();
  });

  /**
   * A staged copy of `bytes` for `day` (`_staging/<run>/p.parquet`), with `existing` already at its final
   * key (`history/dt=<day>/p.parquet`) when given; `publish` moves the one to the other.
   */
  async function staged(run: string, day: string, bytes: string, existing?: string) {
    const from = `_staging/${run}/p.parquet`;
    const to = `history/dt=${day}/p.parquet`;
    if (existing !== undefined) await store.put(to, existing);
    await store.put(from, bytes);
    return { from, to, publish: () => store.publish(from, to) };
  }

  it('publishes a staged object under its final key and removes the staged copy', async () => {
    const p = await staged('run1', '2024-03-03', 'payload');
    await p.publish();
    expect(text(await store.get(p.to))).toBe('payload');
    expect(await store.head(p.from)).toBeUndefined();
  });

  it('treats a repeated publish (source gone, target present) as done', async () => {
    const p = await staged('run2', '2024-03-04', 'once');
    await p.publish();
    await p.publish();
    expect(text(await store.get(p.to))).toBe('once');
  });

  it('never overwrites an existing target: the same bytes there finish the publish (the staged copy is dropped)', async () => {
    const p = await staged('run3', '2024-03-05', 'same', 'same');
    await p.publish();
    expect(text(await store.get(p.to))).toBe('same');
    expect(await store.head(p.from)).toBeUndefined();
  });

  it('never overwrites an existing target: other bytes there fail loudly, and the staged copy is kept', async () => {
    const p = await staged('run4', '2024-03-07', 'other', 'first');
    await expect(p.publish()).rejects.toMatchObject({
      code: 'STORE_FAILED',
      retryable: false,
      message: expect.stringMatching(/write-once conflict/),
    });
    expect(text(await store.get(p.to))).toBe('first');
    expect(text(await store.get(p.from))).toBe('other');
  });

  it('fails to publish when neither source nor target exists', async () => {
    await expect(
      store.publish('_staging/none/p.parquet', 'history/dt=2024-03-06/p.parquet'),
    ).rejects.toMatchObject({
      code: 'STORE_FAILED',
      retryable: false,
    });
  });

  it('deletes staging objects and accepts absent ones', async () => {
    await store.put('_staging/run4/p.parquet', 'x');
    await store.deleteStaging('_staging/run4/p.parquet');
    await store.deleteStaging('_staging/run4/p.parquet');
    expect(await store.head('_staging/run4/p.parquet')).toBeUndefined();
  });
});

import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectInfo } from '../../lib/archive/store/objectStore.ts';

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<string[]> {
  const out: string[] = [];
  for await (const info of iterable) out.push(info.key);
  return out;
}

// The behaviour shared with S3 is in objectStoreContract.int.test.ts; these are the file-only guarantees.
describe('createFileObjectStore', () => {
  let root: string;
  let scratch: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'file-store-'));
    scratch = await mkdtemp(path.join(tmpdir(), 'file-src-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  it('reads a range into the buffer it is given (a view of it: no new buffer a range)', async () => {
    const store = createFileObjectStore(root);
    const body = randomBytes(4096);
    await store.put('a/b.bin', body);
    const buffer = new Uint8Array(1024);
    const first = await store.getRange('a/b.bin', 0, 1024, buffer);
    expect(first?.buffer).toBe(buffer.buffer);
    expect(first).toEqual(new Uint8Array(body.subarray(0, 1024)));
    const last = await store.getRange('a/b.bin', 3584, 4608, buffer);
    expect(last?.buffer).toBe(buffer.buffer);
    expect(last).toEqual(new Uint8Array(body.subarray(3584)));
  });

  it('stores keys as nested folders under the root and reports a file URL', async () => {
    const store = createFileObjectStore(root);
    await store.put('history/dt=2024-01-01/a.parquet', 'abc');
    expect(await readFile(path.join(root, 'history', 'dt=2024-01-01', 'a.parquet'), 'utf8')).toBe('abc');
    expect(store.url).toBe(pathToFileURL(root).href);
  });

  it('never shows a partial object under the final key while a file is being uploaded', async () => {
    const store = createFileObjectStore(root);
    const source = path.join(scratch, 'big.parquet');
    const content = randomBytes(24 * 1024 * 1024);
    await writeFile(source, content);
    const seen: (number | undefined)[] = [];
    let done = false;
    const upload = store.putFile('history/dt=2024-01-02/big.parquet', source).finally(() => {
      done = true;
    });
    while (!done) {
      seen.push((await store.head('history/dt=2024-01-02/big.parquet'))?.size);
      expect(await collect(store.list(''))).not.toContainEqual(expect.stringContaining('.tmp'));
    }
    await upload;
    expect(seen.filter((size) => size !== undefined && size !== content.length)).toEqual([]);
    expect((await store.head('history/dt=2024-01-02/big.parquet'))?.size).toBe(content.length);
  });

  it('leaves no scratch file behind when an upload fails', async () => {
    const store = createFileObjectStore(root);
    await expect(store.putFile('a/b.parquet', path.join(scratch, 'missing'))).rejects.toMatchObject({
      code: 'STORE_FAILED',
    });
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
  });

  it.each(['.tmp', '.state'])('does not list the %s folder and refuses keys inside it', async (hidden) => {
    const store = createFileObjectStore(root);
    await mkdir(path.join(root, hidden), { recursive: true });
    await writeFile(path.join(root, hidden, 'in-flight'), 'partial');
    await store.put('kept.txt', 'x');
    expect(await collect(store.list(''))).toEqual(['kept.txt']);
    await expect(store.put(`${hidden}/x`, 'y')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('lists nothing when the root folder does not exist yet', async () => {
    const store = createFileObjectStore(path.join(root, 'not-yet'));
    expect(await collect(store.list('history/'))).toEqual([]);
    expect(await store.get('history/x')).toBeUndefined();
  });
});

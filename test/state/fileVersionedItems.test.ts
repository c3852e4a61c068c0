import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileVersionedItems, pendingWritesDir } from '../../lib/archive/state/fileVersionedItems.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

/** The one rename the file system refuses (none when unset): every other call is the real one. */
const refused = vi.hoisted(() => ({ target: undefined as string | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (to === refused.target)
        throw Object.assign(new Error(`EIO: i/o error, rename '${to}'`), { code: 'EIO' });
      return actual.rename(from, to);
    },
  };
});
afterEach(() => {
  refused.target = undefined;
});

describe('fileVersionedItems when the file system refuses', () => {
  const tmp = tempDirPer('ta-file-items-', 'test');

  it('fails a write with STORE_FAILED while its folders cannot be made, and writes once they can', async () => {
    const dir = path.join(tmp.dir, 'items');
    // A file where the pending-writes folder should be.
    await writeFile(pendingWritesDir(dir), 'in the way');
    const items = fileVersionedItems(dir);
    await expect(items.put('META', 0, '{}')).rejects.toMatchObject({ code: 'STORE_FAILED' });
    expect(await items.get('META')).toBeUndefined();
    await rm(pendingWritesDir(dir));
    await items.put('META', 0, '{"a":1}');
    expect(await items.get('META')).toEqual({ pk: 'META', version: 1, data: '{"a":1}' });
  });

  it('fails a read with STORE_FAILED where the folder cannot be read', async () => {
    const dir = path.join(tmp.dir, 'items');
    await writeFile(dir, 'a file where the folder should be');
    await expect(fileVersionedItems(dir).get('META')).rejects.toMatchObject({ code: 'STORE_FAILED' });
  });

  it('fails a write whose rename is refused with STORE_FAILED, keeps the item as it was, and leaves no temporary file', async () => {
    const dir = path.join(tmp.dir, 'items');
    const items = fileVersionedItems(dir);
    await items.put('DAY#2026-01-02', 0, '{"v":1}');
    refused.target = path.join(dir, 'DAY%232026-01-02.json');
    await expect(items.put('DAY#2026-01-02', 1, '{"v":2}')).rejects.toMatchObject({ code: 'STORE_FAILED' });
    expect(await readdir(pendingWritesDir(dir))).toEqual([]);
    expect(await items.get('DAY#2026-01-02')).toEqual({ pk: 'DAY#2026-01-02', version: 1, data: '{"v":1}' });
    // The refusal was the rename's alone: once it passes, the same write goes through.
    refused.target = undefined;
    await items.put('DAY#2026-01-02', 1, '{"v":2}');
    expect(await items.get('DAY#2026-01-02')).toEqual({ pk: 'DAY#2026-01-02', version: 2, data: '{"v":2}' });
  });

  it('reports an item file that is not a stored item as INTERNAL, never as absent', async () => {
    const dir = path.join(tmp.dir, 'items');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'META.json'), '{"pk":"META","vers');
    await expect(fileVersionedItems(dir).get('META')).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});

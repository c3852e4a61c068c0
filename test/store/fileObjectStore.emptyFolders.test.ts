import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';

/** Every folder under `dir` (relative), hidden ones included. */
async function folders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('createFileObjectStore leaves no empty folders', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ta-fos-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('removes the emptied _staging/<run>/dt=… folders after publish', async () => {
    const store = createFileObjectStore(root);
    await store.put('_staging/run1/dt=2026-10-01/a.parquet', 'a');
    await store.put('_staging/run1/dt=2026-10-02/b.parquet', 'b');
    await store.publish('_staging/run1/dt=2026-10-01/a.parquet', 'history/dt=2026-10-01/a.parquet');
    expect(await folders(root)).toContain('_staging/run1/dt=2026-10-02');
    expect(await folders(root)).not.toContain('_staging/run1/dt=2026-10-01');
    await store.publish('_staging/run1/dt=2026-10-02/b.parquet', 'history/dt=2026-10-02/b.parquet');
    expect(await folders(root)).toEqual(['history', 'history/dt=2026-10-01', 'history/dt=2026-10-02']);
  });

  it('leaves no scratch folder after many concurrent writes', async () => {
    const store = createFileObjectStore(root);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.put(`_staging/run3/dt=2026-10-0${i % 5}/f${i}.parquet`, `x${i}`),
      ),
    );
    expect((await folders(root)).filter((f) => f.startsWith('.tmp'))).toEqual([]);
    for (let i = 0; i < 40; i++)
      expect(await store.get(`_staging/run3/dt=2026-10-0${i % 5}/f${i}.parquet`)).toEqual(
        new TextEncoder().encode(`x${i}`),
      );
  });

  it('removes them after deleteStaging, but keeps a folder that still holds a file', async () => {
    const store = createFileObjectStore(root);
    await store.put('_staging/run2/dt=2026-10-01/a.parquet', 'a');
    await store.put('_staging/run2/dt=2026-10-01/b.parquet', 'b');
    await store.deleteStaging('_staging/run2/dt=2026-10-01/a.parquet');
    expect(await folders(root)).toContain('_staging/run2/dt=2026-10-01');
    await store.deleteStaging('_staging/run2/dt=2026-10-01/b.parquet');
    expect(await folders(root)).toEqual([]);
    await expect(readdir(root)).resolves.toBeDefined();
  });
});

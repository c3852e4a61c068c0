import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-modes-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createFileObjectStore', () => {
  it("writes every file 0600 and every folder 0700, whatever the writer's umask or a copied file's mode", async () => {
    const dest = join(root, 'archive');
    const objects = createFileObjectStore(dest);
    const source = join(root, 'source.parquet');
    await writeFile(source, 'parquet bytes', { mode: 0o644 });
    await objects.put('history/dt=2026-11-01/a.parquet', 'a');
    await objects.putIfAbsent('quarantine/day=2026-11-01/b.json', '{}');
    await objects.putFile('_staging/history/dt=2026-11-02/c.parquet', source);
    await objects.publish('_staging/history/dt=2026-11-02/c.parquet', 'history/dt=2026-11-02/c.parquet');
    const entries = await readdir(dest, { recursive: true, withFileTypes: true });
    expect(entries.length).toBeGreaterThan(6);
    for (const e of entries) {
      const mode = (await stat(join(e.parentPath, e.name))).mode & 0o777;
      expect([join(e.parentPath, e.name), mode.toString(8)]).toEqual([
        join(e.parentPath, e.name),
        e.isDirectory() ? '700' : '600',
      ]);
    }
    expect((await stat(dest)).mode & 0o777).toBe(0o700);
  });
});

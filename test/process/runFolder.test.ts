import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensureRunFolder,
  MAX_CLOSED_REMEMBERED,
  removeRunFolder,
} from '../../lib/foundation/process/runFolder.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-runfolder-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('run folders', () => {
  it('makes a missing run folder private, and leaves an existing one and its files alone', async () => {
    const dir = join(root, 'tunnel-archiver-a');
    await ensureRunFolder(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await writeFile(join(dir, 'owner.pid'), '1 x');
    await ensureRunFolder(dir);
    expect(await exists(join(dir, 'owner.pid'))).toBe(true);
  });

  it('removes a closed folder with its files, and a writer that comes later neither writes nor makes it again', async () => {
    const dir = join(root, 'tunnel-archiver-b');
    await ensureRunFolder(dir);
    await writeFile(join(dir, 'walk-1.parquet'), 'x');
    await removeRunFolder(dir);
    expect(await exists(dir)).toBe(false);
    await expect(ensureRunFolder(dir)).rejects.toMatchObject({ code: 'INTERNAL' });
    // The same folder named another way is the same closed folder.
    await expect(ensureRunFolder(`${root}/./tunnel-archiver-b/`)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(await exists(dir)).toBe(false);
  });

  it('takes back a folder made while its run was closing: nothing is left, whichever finishes first', async () => {
    for (let i = 0; i < 20; i++) {
      const dir = join(root, `tunnel-archiver-race-${i}`);
      const making = ensureRunFolder(dir).then(
        () => 'made',
        (e: { code?: string }) => e.code,
      );
      await removeRunFolder(dir);
      expect(await making).toBe('INTERNAL');
      expect(await exists(dir)).toBe(false);
    }
  });

  it('closes one run folder only: another run beside it still writes', async () => {
    await removeRunFolder(join(root, 'tunnel-archiver-c'));
    const other = join(root, 'tunnel-archiver-d');
    await ensureRunFolder(other);
    expect(await exists(other)).toBe(true);
  });

  it('remembers the latest closed folders only, so a process that serves run after run holds a bounded set', async () => {
    const dirs = Array.from({ length: MAX_CLOSED_REMEMBERED + 2 }, (_, i) =>
      join(root, `tunnel-archiver-many-${i}`),
    );
    // The first is closed again last but one: closing again makes it one of the latest.
    for (const dir of dirs.slice(0, -1)) await removeRunFolder(dir);
    await removeRunFolder(dirs[0] as string);
    await removeRunFolder(dirs.at(-1) as string);
    // Three closings past the bound: the oldest three are forgotten, the first folder's, renewed, is not.
    for (const dir of [dirs[1], dirs[2]] as string[]) {
      await ensureRunFolder(dir);
      expect(await exists(dir)).toBe(true);
    }
    for (const dir of [dirs[0], dirs[3], dirs.at(-2), dirs.at(-1)] as string[])
      await expect(ensureRunFolder(dir)).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});

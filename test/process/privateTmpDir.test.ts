import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { makeRunTmpDir } from '../../lib/foundation/process/makeRunTmpDir.ts';
import { currentUid, ensurePrivateDir, isOwnFolder } from '../../lib/foundation/process/privateTmpDir.ts';
import { incarnationLiveness, livenessRoot } from '../../lib/foundation/process/processLiveness.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-private-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('ensurePrivateDir', () => {
  it('makes a 0700 folder, and sets an own looser one to 0700', async () => {
    const dir = join(root, 'mine');
    await ensurePrivateDir(dir);
    expect((await lstat(dir)).mode & 0o777).toBe(0o700);
    await chmod(dir, 0o755);
    await ensurePrivateDir(dir);
    expect((await lstat(dir)).mode & 0o777).toBe(0o700);
  });

  it.each([
    {
      what: 'a symbolic link (to a folder of its planter)',
      plant: async (dir: string) => {
        await mkdir(join(root, 'elsewhere'));
        await symlink(join(root, 'elsewhere'), dir);
      },
      says: /is a symbolic link/,
    },
    { what: 'a file', plant: (dir: string) => writeFile(dir, 'x'), says: /is not a folder/ },
  ])('refuses $what in its place', async ({ plant, says }) => {
    const dir = join(root, 'planted');
    await plant(dir);
    const error = await ensurePrivateDir(dir).catch((e: unknown) => e);
    expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(says);
  });

  it("refuses another user's folder", async () => {
    const dir = join(root, 'theirs');
    await mkdir(dir);
    await chmod(dir, 0o777);
    const other = (currentUid() ?? 0) + 1;
    const error = await ensurePrivateDir(dir, other).catch((e: unknown) => e);
    expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/belongs to user \d+, not to you/);
    // Refused, not changed.
    expect((await lstat(dir)).mode & 0o777).toBe(0o777);
  });
});

describe('livenessRoot', () => {
  it("is a folder of this user's own, named by its uid", () => {
    expect(livenessRoot('/tmp')).toBe(`/tmp/tunnel-archiver-live-${currentUid()}`);
  });

  it('reads no lock through a planted link: the liveness of any incarnation there is unknown', async () => {
    const incarnation = '00000000-0000-4000-8000-0000000000aa';
    const target = join(root, 'target', incarnation);
    await mkdir(target, { recursive: true });
    await writeFile(join(target, 'LOCK'), '');
    await symlink(join(root, 'target'), livenessRoot(root));
    expect(await incarnationLiveness(incarnation, root)).toBe('unknown');
    // Nothing was opened or written in the link's target.
    expect(await readdir(target)).toEqual(['LOCK']);
  });
});

describe('the run folder sweep', () => {
  it("never follows a link, and leaves what is not this user's alone", async () => {
    const victim = join(root, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'owner.pid'), `${deadPid()} x`);
    await writeFile(join(victim, 'precious'), 'keep me');
    await symlink(victim, join(root, 'tunnel-archiver-link'));
    expect(await isOwnFolder(join(root, 'tunnel-archiver-link'))).toBe(false);
    expect(await isOwnFolder(victim, (currentUid() ?? 0) + 1)).toBe(false);
    const made = await makeRunTmpDir(root, 'run1');
    expect(made.removed).toBe(0);
    expect((await readdir(victim)).sort()).toEqual(['owner.pid', 'precious']);
    expect((await readdir(root)).sort()).toEqual(['tunnel-archiver-link', 'tunnel-archiver-run1', 'victim']);
  });
});

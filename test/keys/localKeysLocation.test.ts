import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_KEY_FILES, loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import {
  archiveKeysName,
  locateLocalKeys,
  userConfigHome,
  userKeysDir,
} from '../../lib/archive/keys/localKeysLocation.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-keyloc-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('userConfigHome', () => {
  it.each([
    { env: { XDG_CONFIG_HOME: '/x/config', HOME: '/home/ana' }, home: '/x/config' },
    { env: { XDG_CONFIG_HOME: 'relative/config', HOME: '/home/ana' }, home: '/home/ana/.config' },
    { env: { XDG_CONFIG_HOME: '', HOME: '/home/ana' }, home: '/home/ana/.config' },
    { env: { HOME: '/home/ana' }, home: '/home/ana/.config' },
  ])('$env gives $home', ({ env, home }) => {
    expect(userConfigHome(env)).toBe(home);
  });
});

describe('locateLocalKeys', () => {
  const env = { XDG_CONFIG_HOME: '/cfg' };

  it('puts the keys of a new archive in the per-user folder, named by the archive, never inside it', () => {
    const location = locateLocalKeys('/data/archive', undefined, env, () => false);
    expect(location).toEqual({ dir: userKeysDir('/data/archive', env), source: 'user' });
    expect(location.dir).toMatch(/^\/cfg\/tunnel-archiver\/keys\/archive-[0-9a-f]{16}$/);
    expect(location.dir.startsWith('/data/archive')).toBe(false);
  });

  it('gives two archives of one name two folders', () => {
    expect(archiveKeysName('/a/archive')).not.toBe(archiveKeysName('/b/archive'));
    expect(archiveKeysName('/a/my archive!')).toMatch(/^my_archive_-[0-9a-f]{16}$/);
  });

  it('keeps reading the keys of an archive made before the per-user default where they are', () => {
    expect(locateLocalKeys('/data/archive', undefined, env, (p) => p === '/data/archive/.keys')).toEqual({
      dir: '/data/archive/.keys',
      source: 'archive',
    });
  });

  it('takes ARCHIVE_KEYS_DIR over both', () => {
    expect(locateLocalKeys('/data/archive', '/safe/keys', env, () => true)).toEqual({
      dir: '/safe/keys',
      source: 'keys-dir',
    });
  });
});

describe('loadLocalKeys in the per-user folder', () => {
  it('makes every folder it creates 0700 and every key 0600', async () => {
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const dir = userKeysDir(join(root, 'archive'), env);
    await loadLocalKeys(dir);
    for (const folder of [dir, join(root, 'config', 'tunnel-archiver', 'keys'), join(root, 'config')])
      expect((await stat(folder)).mode & 0o777).toBe(0o700);
    for (const name of Object.values(LOCAL_KEY_FILES))
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
  });

  it('warns of a folder or key others could read, and tightens it', async () => {
    const dir = join(root, 'keys');
    await loadLocalKeys(dir);
    await chmod(dir, 0o755);
    await chmod(join(dir, LOCAL_KEY_FILES.tokenKey), 0o644);
    const warnings: string[] = [];
    await loadLocalKeys(dir, { warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([
      `${dir} was readable by others (mode 0755): set to 0700`,
      `${join(dir, LOCAL_KEY_FILES.tokenKey)} was readable by others (mode 0644): set to 0600`,
    ]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, LOCAL_KEY_FILES.tokenKey))).mode & 0o777).toBe(0o600);
    const quiet: string[] = [];
    await loadLocalKeys(dir, { warn: (m) => quiet.push(m) });
    expect(quiet).toEqual([]);
  });

  it('reads existing keys in a folder made by hand', async () => {
    const dir = join(root, 'by-hand');
    await mkdir(dir, { mode: 0o700 });
    const first = await loadLocalKeys(dir);
    const again = await loadLocalKeys(dir);
    expect(Buffer.from(again.tokenKey).equals(Buffer.from(first.tokenKey))).toBe(true);
  });
});

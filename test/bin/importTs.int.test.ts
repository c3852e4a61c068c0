import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CACHE = join(ROOT, 'node_modules', '.cache', 'tunnel-archiver');
let dir: string;

beforeAll(async () => {
  // Inside the repository (under test/), as every entry the bin runs is: its packages resolve from there.
  dir = await mkdtemp(join(ROOT, 'test', 'bin', '.tmp-import-ts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The name of the cache record of `entry` (bin/importTs.js names it after the checkout root and the path). */
function cacheName(entry: string, root = ROOT): string {
  return createHash('sha256')
    .update(`${root}\0${relative(root, entry)}`)
    .digest('hex')
    .slice(0, 16);
}

/** The build folder the cache records for `entry`. */
async function cachedBuild(entry: string): Promise<string> {
  const name = cacheName(entry);
  return (JSON.parse(await readFile(join(CACHE, `${name}.json`), 'utf8')) as { dir: string }).dir;
}

function runTs(
  file: string,
  env: Record<string, string> = {},
  root = ROOT,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run-ts.js'), file], {
    encoding: 'utf8',
    cwd: root,
    env: { ...process.env, ...env },
  });
  return { code: r.status, stdout: r.stdout.trim(), stderr: r.stderr };
}

describe('bin/run-ts.js (esbuild bundle of a TypeScript entry)', () => {
  it('gives every module its own import.meta.url, and leaves the text inside strings alone', async () => {
    await writeFile(
      join(dir, 'dep.ts'),
      "export const depUrl: string = import.meta.url;\nexport const text = 'see import.meta.url here';\n",
    );
    await writeFile(
      join(dir, 'entry.ts'),
      "import { depUrl, text } from './dep.ts';\nconsole.log(JSON.stringify({ own: import.meta.url, depUrl, text }));\n",
    );
    const r = runTs(join(dir, 'entry.ts'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      own: pathToFileURL(join(dir, 'entry.ts')).href,
      depUrl: pathToFileURL(join(dir, 'dep.ts')).href,
      text: 'see import.meta.url here',
    });
  });

  it('rebuilds when a source file changes, and keeps a dynamic import lazy', async () => {
    await writeFile(join(dir, 'lazy.ts'), "console.log('lazy loaded');\nexport const v = 1;\n");
    const entry = join(dir, 'lazyEntry.ts');
    const body = (word: string) =>
      `console.log('${word}');\nif (process.env.LOAD_LAZY) await import('./lazy.ts');\n`;
    await writeFile(entry, body('first'));
    expect(runTs(entry).stdout).toBe('first');
    expect(runTs(entry, { LOAD_LAZY: '1' }).stdout).toBe('first\nlazy loaded');
    // A whole-second mtime, set again after the next edit: size and mtime then match exactly.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await writeFile(entry, body('second'));
    await utimes(entry, mtime, mtime);
    expect(runTs(entry).stdout).toBe('second');
    const before = await stat(entry);
    await writeFile(entry, body('thirds'));
    await utimes(entry, mtime, mtime);
    const after = await stat(entry);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(runTs(entry).stdout).toBe('thirds');
    // Unchanged bytes: the cached bundle is reused (no new build folder).
    const build = await cachedBuild(entry);
    expect(runTs(entry).stdout).toBe('thirds');
    expect(await cachedBuild(entry)).toBe(build);
  });

  it('never runs, in one checkout, a bundle built in another that shares its node_modules', async () => {
    // A second checkout, as a git worktree with its node_modules linked to this one's: the same bin,
    // the same entry bytes at the same path, one cache folder.
    const other = await mkdtemp(join(tmpdir(), 'ta-import-ts-root-'));
    const entry = join(dir, 'whereAmI.ts');
    const otherEntry = join(other, relative(ROOT, entry));
    try {
      await cp(join(ROOT, 'bin'), join(other, 'bin'), { recursive: true });
      await mkdir(join(other, 'lib', 'foundation', 'fingerprint'), { recursive: true });
      await cp(
        join(ROOT, 'lib', 'foundation', 'fingerprint', 'sourceFingerprint.js'),
        join(other, 'lib', 'foundation', 'fingerprint', 'sourceFingerprint.js'),
      );
      await symlink(join(ROOT, 'node_modules'), join(other, 'node_modules'));
      const source = 'console.log(import.meta.url);\n';
      await writeFile(entry, source);
      await mkdir(join(otherEntry, '..'), { recursive: true });
      await writeFile(otherEntry, source);

      expect(runTs(entry).stdout).toBe(pathToFileURL(entry).href);
      const r = runTs(otherEntry, {}, other);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(pathToFileURL(otherEntry).href);
      // Each checkout keeps its own build: running the first again reuses it.
      const build = await cachedBuild(entry);
      expect(runTs(entry).stdout).toBe(pathToFileURL(entry).href);
      expect(await cachedBuild(entry)).toBe(build);
    } finally {
      await rm(other, { recursive: true, force: true });
      const name = cacheName(otherEntry, other);
      for (const f of await readdir(CACHE)) {
        if (f === `${name}.json` || f.startsWith(`${name}-`))
          await rm(join(CACHE, f), { recursive: true, force: true });
      }
    }
  });
});

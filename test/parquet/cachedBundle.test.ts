import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltBundle, cachedBundle } from '../../lib/archive/parquet/cachedBundle.ts';

describe('cachedBundle', () => {
  let root: string;
  let builds: number;
  const options = () => ({ dir: join(root, 'cache'), key: 'k', root });
  /** A "bundle" of the two inputs' current text, counting the builds. */
  const build = (): BuiltBundle => {
    builds++;
    return { code: `built ${builds}`, inputs: ['a.ts', 'sub/b.ts'] };
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'ta-bundle-'));
    builds = 0;
    await writeFile(join(root, 'a.ts'), 'export const a = 1;');
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'sub/b.ts'), 'export const b = 2;');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('builds once, then reuses the bundle while its inputs hold the same bytes', () => {
    expect(cachedBundle(options(), build)).toBe('built 1');
    expect(cachedBundle(options(), build)).toBe('built 1');
    expect(builds).toBe(1);
  });

  it('rebuilds when an input’s bytes change, even at the same size', async () => {
    cachedBundle(options(), build);
    await writeFile(join(root, 'sub/b.ts'), 'export const b = 3;');
    expect(cachedBundle(options(), build)).toBe('built 2');
    expect(cachedBundle(options(), build)).toBe('built 2');
    expect(builds).toBe(2);
  });

  it('rebuilds when an input is gone', async () => {
    cachedBundle(options(), build);
    await unlink(join(root, 'a.ts'));
    expect(cachedBundle(options(), build)).toBe('built 2');
  });

  it('rebuilds on unreadable metadata, and on code that is not the code its metadata names', async () => {
    cachedBundle(options(), build);
    await writeFile(join(root, 'cache', 'k.json'), '{not json');
    expect(cachedBundle(options(), build)).toBe('built 2');
    await writeFile(join(root, 'cache', 'k.cjs'), 'tampered');
    expect(cachedBundle(options(), build)).toBe('built 3');
    expect(await readFile(join(root, 'cache', 'k.cjs'), 'utf8')).toBe('built 3');
  });

  it('still returns the bundle when the cache cannot be written, building each time', async () => {
    await writeFile(join(root, 'cache'), 'a file where the folder should be');
    expect(cachedBundle(options(), build)).toBe('built 1');
    expect(cachedBundle(options(), build)).toBe('built 2');
  });

  it('throws what the build throws, and caches nothing', async () => {
    expect(() =>
      cachedBundle(options(), () => {
        throw new Error('esbuild failed');
      }),
    ).toThrow('esbuild failed');
    expect(cachedBundle(options(), build)).toBe('built 1');
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The folders a fresh clone builds and tests from. */
const BIOME = join(ROOT, 'node_modules/.bin/biome');
const SOURCES = [
  'lib',
  'functions',
  'infra',
  'bin',
  'devkit',
  'bench',
  'test',
  'tools/profile',
  'detections',
  'docs',
];

const git = (...args: string[]): string[] =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

describe('what a fresh clone holds', () => {
  it('no source file is ignored by git: new (a fresh clone would lack it) or committed (its next sibling would be)', () => {
    const ignored = [
      ...git('ls-files', '--others', '--ignored', '--exclude-standard', '--', ...SOURCES),
      ...git('ls-files', '--cached', '--ignored', '--exclude-standard', '--', ...SOURCES),
    ].filter((f) => !/(^|\/)node_modules\//.test(f));
    expect(ignored).toEqual([]);
  });

  it("the control: git's check sees a file the ignore rules match", () => {
    expect(git('check-ignore', '--no-index', 'archive/x.parquet', 'node_modules/x')).toEqual([
      'archive/x.parquet',
      'node_modules/x',
    ]);
  });

  it("every committed source file is linted: biome's ignore rules skip only what they name (.d.ts, the OCSF schemas)", () => {
    const sources = git('ls-files', ...SOURCES).filter((f) => /[.](ts|js|mjs|cjs|json)$/.test(f));
    const meantToSkip = sources.filter(
      (f) => f.endsWith('.d.ts') || /^test[/]fixtures[/]ocsf[/][^/]+[.]schema[.]json$/.test(f),
    );
    const r = spawnSync(BIOME, ['format', ...sources], { cwd: ROOT, encoding: 'utf8' });
    expect(Number(/Checked (\d+) files?/.exec(`${r.stdout}${r.stderr}`)?.[1])).toBe(
      sources.length - meantToSkip.length,
    );
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { methodology } from '../../bench/methodology.ts';

const KEYS = [
  ...readFileSync(new URL('../../bench/METHODOLOGY.md', import.meta.url), 'utf8').matchAll(
    /^## .*\(`([a-z-]+)`\)$/gm,
  ),
].map((m) => m[1] as string);
const RENDERERS = ['resultSections.ts', 'renderScriptTargets.ts']
  .map((f) => readFileSync(new URL(`../../bench/${f}`, import.meta.url), 'utf8'))
  .join('\n');

describe('methodology', () => {
  it('gives a section as one paragraph with its figures filled in', () => {
    expect(methodology('cases-quick')).toBe('One run of each.');
    expect(methodology('share-cases', { pageSize: 2000 })).toContain('(2000 rows a page)');
  });

  it('throws on a section the file does not have, or a figure left unfilled', () => {
    expect(() => methodology('no-such-section')).toThrow('no section');
    expect(() => methodology('share-cases')).toThrow('no figure for {{pageSize}}');
  });

  it('has each section a renderer includes, and no section none does', () => {
    const used = [...RENDERERS.matchAll(/methodology\(\s*'([a-z-]+)'/g)].map((m) => m[1]);
    expect(KEYS.length).toBeGreaterThan(5);
    for (const key of KEYS)
      expect(used.includes(key) || RENDERERS.includes(`'${key}'`), `${key} is rendered`).toBe(true);
    for (const key of used) expect(KEYS, `METHODOLOGY.md has (\`${key}\`)`).toContain(key);
  });
});

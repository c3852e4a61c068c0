import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FanoutFigures } from '../../bench/fanoutSimulation.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const results = JSON.parse(read('bench/RESULTS.json')) as { fanout?: FanoutFigures };

/** Millions, as the pages write them: `1.12M`, `44M`. */
const millions = (n: number): string => `${Number((n / 1_000_000).toFixed(2))}M`;

describe('the account sizes README and docs/fanout.md state are those bench/RESULTS.json holds', () => {
  const f = results.fanout as FanoutFigures;

  it('has the fan-out figures (npm run bench -- --only=fanout-2M)', () => {
    expect(f?.wallMinutes.map((w) => w.concurrency)).toEqual([1, 4, 16]);
  });

  it("README's first lines: the largest day one Lambda and the fan-out serve, and a 2M day's time at 16", () => {
    const top = read('README.md').split('\n').slice(0, 15).join('\n');
    expect(top).toContain(`**${millions(f.largestDayOneLambda)} sessions**`);
    expect(top).toContain(`**${millions(f.largestDayFanout)} sessions**`);
    expect(top).toContain(`**${f.wallMinutes.find((w) => w.concurrency === 16)?.minutes} min**`);
    expect(top).toContain('(docs/fanout.md)');
  });

  it('docs/fanout.md: the wall time of a 2M-session day by concurrency, and both largest days', () => {
    const doc = read('docs/fanout.md');
    for (const w of f.wallMinutes)
      expect(doc).toMatch(new RegExp(`\\|\\s*${w.concurrency}\\s*\\|\\s*${w.minutes} min\\s*\\|`));
    expect(doc).toContain(`${millions(f.largestDayOneLambda)} sessions`);
    expect(doc).toContain(`${millions(f.largestDayFanout)} sessions`);
  });
});

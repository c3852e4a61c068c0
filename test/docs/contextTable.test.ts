import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../infra/stackSettings.ts';

const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
/** The first cell of every row of the context table (the table whose header's first cell is `context`). */
const rows = (() => {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => /^\|\s*context\s*\|/.test(l));
  const out: string[] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    out.push(/^\|\s*`([^`]+)`/.exec(l)?.[1] ?? l);
  }
  return out;
})();

describe("docs/operations.md's context options", () => {
  it('lists every context key the stack reads, once', () => {
    expect([...rows].sort()).toEqual([...SETTING_KEYS].sort());
  });
});

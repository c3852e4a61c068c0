import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { rulePage } from '../../lib/analytics/detect/ruleDocs.ts';

const rules = await loadRules();
const index = await readFile(new URL('../../docs/detections.md', import.meta.url), 'utf8');

describe('docs/detections/', () => {
  it.each(rules.map((r) => [r.id, r] as const))(
    '%s.md is what its yml and SQL generate',
    async (id, rule) => {
      const page = await readFile(new URL(`../../docs/detections/${id}.md`, import.meta.url), 'utf8');
      expect(page, 'run npm run detections:docs').toBe(rulePage(rule));
    },
  );

  it('docs/detections.md links every rule page, and no other', () => {
    const linked = [...index.matchAll(/\]\(detections\/(\w+)\.md\)/g)].map((m) => m[1]).sort();
    expect(linked).toEqual(rules.map((r) => r.id).sort());
  });
});

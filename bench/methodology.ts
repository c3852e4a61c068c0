import { readFileSync } from 'node:fs';

const TEXT = readFileSync(new URL('./METHODOLOGY.md', import.meta.url), 'utf8');

/**
 * The text of one section of bench/METHODOLOGY.md, named by the key in backticks at the end of its heading
 * (`## Where the peak memory is (\`memory\`)`), as one paragraph, each `{{figure}}` filled in from `figures`.
 * A missing section or an unfilled figure throws: RESULTS.md never shows a hole.
 */
export function methodology(key: string, figures: Record<string, string | number> = {}): string {
  const section = TEXT.split(/^## /m).find((s) => s.split('\n', 1)[0]?.endsWith(`(\`${key}\`)`));
  if (section === undefined) throw new Error(`bench/METHODOLOGY.md has no section (\`${key}\`)`);
  const text = section
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ')
    .replace(/\{\{(\w+)\}\}/g, (all, name: string) => {
      const value = figures[name];
      if (value === undefined) throw new Error(`bench/METHODOLOGY.md (\`${key}\`): no figure for ${all}`);
      return String(value);
    });
  return text;
}

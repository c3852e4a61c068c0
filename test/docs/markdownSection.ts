import { readFileSync } from 'node:fs';

/** The section of the repository's page `page` under `## title` / `### title`, up to the next heading of any level. */
export function section(page: string, title: string): string {
  const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
  const start = text.search(new RegExp(`^#+ ${title}$`, 'm'));
  if (start < 0) throw new Error(`${page} has no section '${title}'`);
  const rest = text.slice(start).split('\n');
  const end = rest.slice(1).findIndex((l) => l.startsWith('#'));
  return rest.slice(0, end < 0 ? undefined : end + 1).join('\n');
}

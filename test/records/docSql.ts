import { readFileSync } from 'node:fs';

/**
 * The SQL block of docs/data-contract.md whose first line is `-- <name>: …`: tests run the documented
 * query itself, so the page and the behaviour cannot drift apart.
 */
export function readDocSql(name: string): string {
  const text = readFileSync(new URL('../../docs/data-contract.md', import.meta.url), 'utf8');
  for (const [, body] of text.matchAll(/```sql\n([\s\S]*?)```/g)) {
    if (body?.startsWith(`-- ${name}:`)) return body;
  }
  throw new Error(`docs/data-contract.md has no SQL block starting '-- ${name}:'`);
}

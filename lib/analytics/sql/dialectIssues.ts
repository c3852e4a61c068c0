import { OUTSIDE_SUBSET, SHARED_FUNCTIONS } from './dialect.ts';

/** SQL words that a `(` may follow without being a function call. */
const KEYWORDS: ReadonlySet<string> = new Set([
  'in',
  'as',
  'exists',
  'unnest',
  'cast',
  'over',
  'values',
  'and',
  'or',
  'not',
  'on',
  'where',
  'by',
  'from',
  'join',
  'select',
  'when',
  'then',
  'else',
  'having',
  'with',
  'using',
  'is',
  'distinct',
]);

/** `sql` with its comments and string literals blanked: what is left is code. */
export function stripCommentsAndStrings(sql: string): string {
  return sql.replace(/--[^\n]*/g, ' ').replace(/'(?:[^']|'')*'/g, "''");
}

/**
 * The names `code` calls as functions (lower case, in order, repeats kept): every `name(` except SQL
 * words in `notCalls` and a table alias's column list (`AS u(d)`).
 */
export function calledFunctions(code: string, notCalls: ReadonlySet<string> = KEYWORDS): string[] {
  const names: string[] = [];
  for (const m of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const name = (m[1] ?? '').toLowerCase();
    if (notCalls.has(name) || /\bas$/i.test(code.slice(0, m.index).trimEnd())) continue;
    names.push(name);
  }
  return names;
}

/**
 * What in `code` (SQL without comments and strings) is outside the subset Athena and DuckDB agree on:
 * the constructs of lib/analytics/sql/dialect.ts that differ, and calls of functions outside `SHARED_FUNCTIONS`.
 * Empty = inside the subset.
 */
export function dialectIssues(code: string): string[] {
  const issues: string[] = [];
  for (const { pattern, why } of OUTSIDE_SUBSET) if (pattern.test(code)) issues.push(why);
  for (const name of calledFunctions(code))
    if (!SHARED_FUNCTIONS.has(name)) issues.push(`${name}() is not in the shared subset`);
  return [...new Set(issues)];
}

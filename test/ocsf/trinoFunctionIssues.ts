/**
 * Functions the OCSF views call, each one Trino (Athena engine 3) defines with the meaning the views
 * use. A function outside it is one to look up before the views may call it.
 */
export const TRINO_FUNCTIONS: ReadonlySet<string> = new Set([
  'row_number',
  'array_agg',
  'array_distinct',
  'element_at',
  'nullif',
  'to_unixtime',
  'date_diff',
]);

/** Grammar words a `(` follows without being a call (casts, constructors, clauses, types). */
const NOT_CALLS = new Set([
  'cast',
  'row',
  'array',
  'unnest',
  'over',
  'values',
  'in',
  'as',
  'and',
  'or',
  'on',
  'from',
  'join',
  'then',
  'else',
  'when',
  'select',
  'where',
  'varchar',
  'integer',
  'bigint',
  'boolean',
]);

/**
 * The calls in `sql` of functions outside TRINO_FUNCTIONS: what Trino's grammar accepts but its engine
 * would reject or read differently (`epoch_ms(t)`, `list_transform(a, x -> x)` parse as Trino; neither is
 * a Trino function). The grammar itself is checked by test/support/trinoSyntaxErrors.ts. Empty = clean.
 */
export function trinoFunctionIssues(sql: string): string[] {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/"(?:[^"]|"")*"/g, '""');
  const issues = new Set<string>();
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)) {
    const name = (m[1] ?? '').toLowerCase();
    // `AS u(d)`: a table alias with its column list.
    if (NOT_CALLS.has(name) || /\bas\s*$/i.test(code.slice(0, m.index))) continue;
    if (!TRINO_FUNCTIONS.has(name)) issues.add(`${name}() is not a function the views may call`);
  }
  return [...issues];
}

/** Functions the OCSF views call, each one Trino (Athena engine 3) defines with the meaning the views use. */
const TRINO_FUNCTIONS = new Set([
  'row_number',
  'array_agg',
  'array_distinct',
  'element_at',
  'nullif',
  'to_unixtime',
  'date_diff',
]);
/** Words a `(` may follow without a function call. */
const SYNTAX = new Set([
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
 * What in `sql` Trino would not parse or would read differently from DuckDB: DuckDB-only spellings
 * (`::` casts, `T[]` array types, list literals, lambdas, struct_pack/list_* functions), unbalanced
 * parentheses or quotes, and calls of functions outside the list above. Empty = clean.
 */
export function trinoSqlIssues(sql: string): string[] {
  const issues: string[] = [];
  const code = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/"(?:[^"]|"")*"/g, '""');
  if ((sql.match(/'/g) ?? []).length % 2 !== 0) issues.push('unbalanced single quotes');
  let depth = 0;
  for (const ch of code) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) issues.push('unbalanced parentheses');
  if (/::/.test(code)) issues.push("'::' cast (DuckDB only)");
  if (/\w\s*\[\]/.test(code)) issues.push("'T[]' array type (DuckDB only)");
  if (/(^|[^\w])\[/.test(code.replace(/\bARRAY\[/gi, '')))
    issues.push('a list literal or subscript (DuckDB only)');
  if (/->|\blambda\b/i.test(code)) issues.push('a lambda');
  if (/\b(struct_pack|list_\w+|epoch_ms|strftime)\s*\(/i.test(code)) issues.push('a DuckDB-only function');
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)) {
    const name = (m[1] ?? '').toLowerCase();
    if (SYNTAX.has(name) || /\bas\s*$/i.test(code.slice(0, m.index))) continue;
    if (!TRINO_FUNCTIONS.has(name)) issues.push(`${name}() is not a function the views may call`);
  }
  return [...new Set(issues)];
}

import { SHARED_FUNCTIONS } from '../../lib/analytics/sql/dialect.ts';
import { calledFunctions } from '../../lib/analytics/sql/dialectIssues.ts';

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
 * The calls in `sql` of functions outside the ones Athena and DuckDB answer alike (`SHARED_FUNCTIONS` of
 * lib/analytics/sql/dialect.ts): what Trino's grammar accepts but its engine would reject or read differently
 * (`epoch_ms(t)`, `list_transform(a, x -> x)` parse as Trino; neither is a Trino function). The grammar
 * itself is checked by test/support/trinoSyntaxErrors.ts. Empty = clean.
 */
export function trinoFunctionIssues(sql: string): string[] {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/"(?:[^"]|"")*"/g, '""');
  const outside = calledFunctions(code, NOT_CALLS).filter((name) => !SHARED_FUNCTIONS.has(name));
  return [...new Set(outside)].map((name) => `${name}() is not a function the views may call`);
}

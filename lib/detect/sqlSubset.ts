import { SHIMMED_FUNCTIONS } from '../query/duckdbShims.ts';
import { sessionsSql } from './renderRuleSql.ts';

/**
 * Functions that mean the same in Athena (Trino) and DuckDB, checked on both engines (docs/detections.md
 * lists them), plus the ones DuckDB only has through a shim (lib/query/duckdbShims.ts).
 */
export const SHARED_FUNCTIONS: ReadonlySet<string> = new Set([
  'min',
  'max',
  'count',
  'sum',
  'avg',
  'array_agg',
  'min_by',
  'max_by',
  'coalesce',
  'lower',
  'upper',
  'strpos',
  'length',
  'regexp_extract',
  'date_diff',
  'date_trunc',
  'hour',
  'row_number',
  'replace',
  'substr',
  'lpad',
  'split_part',
  ...SHIMMED_FUNCTIONS,
]);

/** SQL words that a `(` may follow without being a function call. */
const KEYWORDS = new Set([
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

/** Constructs outside the subset, each with why (what differs between the engines). */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/\bextract\s*\(/i, 'extract(): extract(dow) is Sunday = 0 in DuckDB and 7 in Athena; use day_of_week()'],
  [/::/, "'::' casts are DuckDB only; use CAST(x AS type)"],
  [/\binterval\b/i, 'INTERVAL literals are spelled differently; compare with date_diff() or a {{setting}}'],
  [/\bqualify\b/i, 'QUALIFY is DuckDB only'],
  [/\bilike\b/i, 'ILIKE is DuckDB only; use lower(x) LIKE'],
  [/->/, 'lambdas differ between the engines'],
  [/\bcurrent_(date|timestamp)\b|\bnow\s*\(/i, 'the clock belongs to the runner: use {{since}} / {{until}}'],
  // `ARRAY[a, b]` is the array constructor both engines spell alike; a bare `[` is not.
  [
    /(?<!\barray\s*)\[/i,
    "list literals and subscripts differ ('[...]' is DuckDB only, arrays index from 1 in Athena); build arrays with ARRAY[...]",
  ],
];

/** Table references a rule may read (unqualified, as the Athena database is the query context). */
const TABLE_REF = /\b(?:from|join)\s+(tunnel_[a-z_]+)/gi;
const DT_FILTER = /\bdt\s*>=\s*'\{\{(?:since|baseline_since)\}\}'/gi;

function stripCommentsAndStrings(sql: string): string {
  return sql.replace(/--[^\n]*/g, ' ').replace(/'(?:[^']|'')*'/g, "''");
}

/**
 * What in `sql` (a rule's template) is outside the subset both engines agree on: functions not in
 * {@link SHARED_FUNCTIONS}, constructs that differ, and reads of a table without a `dt >= {{since}}`
 * (or `{{baseline_since}}`) filter for Athena's partition pruning. Empty = inside the subset.
 */
export function checkSqlSubset(template: string): string[] {
  const issues: string[] = [];
  const sql = template
    .replaceAll('{{sessions}}', () => sessionsSql({}))
    .replaceAll('{{baseline_sessions}}', () => sessionsSql({}, 'baseline_since'));
  const code = stripCommentsAndStrings(sql);
  for (const [re, why] of FORBIDDEN) if (re.test(code)) issues.push(why);
  for (const m of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const name = (m[1] ?? '').toLowerCase();
    const before = code.slice(0, m.index).trimEnd();
    if (KEYWORDS.has(name) || /\bas$/i.test(before)) continue;
    if (!SHARED_FUNCTIONS.has(name)) issues.push(`${name}() is not in the shared subset`);
  }
  const tables = [...code.matchAll(TABLE_REF)].length;
  const filters = [...sql.matchAll(DT_FILTER)].length;
  if (tables === 0) issues.push('reads no tunnel_* table');
  if (filters < tables)
    issues.push(`reads ${tables} table(s) but filters dt >= '{{since}}' only ${filters} time(s)`);
  return [...new Set(issues)];
}

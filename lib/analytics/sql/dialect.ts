/**
 * Where Athena (Trino) and DuckDB differ, in one list: the saved queries, the detection rules and the
 * OCSF views are written once in Trino SQL, and DuckDB runs that same text locally. Each entry says how:
 *
 * - `macro`: an Athena function DuckDB names or defines differently, given to DuckDB as a macro of
 *   the same name (`trino` is the call, `duckdb` its DuckDB body);
 * - `rewrite`: a spelling DuckDB does not read, which lib/analytics/sql/duckdbSpelling.ts rewrites;
 * - `outside`: a construct the two engines read differently (or only one reads), which rules and
 *   views leave out; `pattern` finds it in SQL stripped of comments and strings, `why` is the message.
 *
 * `test/sql/dialect.test.ts` checks every entry in DuckDB against what Athena documents for a fixed input.
 */
export type DialectDifference =
  | { kind: 'macro'; trino: string; duckdb: string; why: string }
  | { kind: 'rewrite'; trino: string; duckdb: string; why: string }
  | { kind: 'outside'; trino: string; duckdb: string; pattern: RegExp; why: string };

export const DIALECT: readonly DialectDifference[] = [
  // `%Y`, `%m`, `%d` (all the saved queries use) mean the same in both.
  { kind: 'macro', trino: 'date_format(d, f)', duckdb: 'strftime(d, f)', why: 'DuckDB calls it strftime' },
  { kind: 'macro', trino: 'cardinality(a)', duckdb: 'len(a)', why: 'DuckDB calls it len' },
  {
    kind: 'macro',
    trino: 'day_of_week(d)',
    duckdb: 'isodow(d)',
    why: "Trino: Monday = 1 .. Sunday = 7 (ISO), as DuckDB's isodow; DuckDB's dayofweek has Sunday = 0",
  },
  {
    kind: 'macro',
    trino: 'approx_distinct(x)',
    duckdb: 'count(DISTINCT x)',
    why: "DuckDB's approx_count_distinct is a different estimate; the exact count is what Athena gives on small sets",
  },
  {
    kind: 'macro',
    trino: 'regexp_like(s, p)',
    duckdb: 'regexp_matches(s, p)',
    why: 'true when the pattern matches anywhere in the string, in both',
  },
  {
    kind: 'macro',
    trino: 'from_iso8601_timestamp(s)',
    duckdb: 'CAST(s AS TIMESTAMPTZ)',
    why: 'DuckDB reads ISO 8601 text by a cast',
  },
  {
    kind: 'macro',
    trino: 'to_unixtime(t)',
    duckdb: 'epoch(t)',
    why: "seconds since the epoch as a double in both (the OCSF mapping's epoch milliseconds)",
  },
  {
    kind: 'macro',
    trino: 'element_at(a, i)',
    duckdb: 'list_extract(a, i)',
    why: "Trino: the 1-based element of an array, NULL past its end (DuckDB's element_at is for maps)",
  },
  {
    kind: 'macro',
    trino: 'array_distinct(a)',
    duckdb: 'list_filter(a, (x, i) -> list_position(a, x) = i)',
    why: "Trino keeps each element's first place; DuckDB's array_distinct returns them in any order",
  },
  {
    kind: 'rewrite',
    trino: 'array(varchar)',
    duckdb: 'varchar[]',
    why: 'array types: Trino spells them array(T), DuckDB T[]',
  },
  {
    kind: 'outside',
    trino: 'extract(dow FROM d)',
    duckdb: 'extract(dow FROM d)',
    pattern: /\bextract\s*\(/i,
    why: 'extract(): extract(dow) is Sunday = 0 in DuckDB and 7 in Athena; use day_of_week()',
  },
  {
    kind: 'outside',
    trino: 'CAST(x AS date)',
    duckdb: 'x::date',
    pattern: /::/,
    why: "'::' casts are DuckDB only; use CAST(x AS type)",
  },
  {
    kind: 'outside',
    trino: "d + INTERVAL '1' DAY",
    duckdb: 'd + INTERVAL 1 DAY',
    pattern: /\binterval\b/i,
    why: 'INTERVAL literals are spelled differently; compare with date_diff() or a {{setting}}',
  },
  {
    kind: 'outside',
    trino: 'a subquery filtered on row_number()',
    duckdb: 'QUALIFY row_number() OVER (...) = 1',
    pattern: /\bqualify\b/i,
    why: 'QUALIFY is DuckDB only',
  },
  {
    kind: 'outside',
    trino: "lower(x) LIKE 'a%'",
    duckdb: "x ILIKE 'a%'",
    pattern: /\bilike\b/i,
    why: 'ILIKE is DuckDB only; use lower(x) LIKE',
  },
  {
    kind: 'outside',
    trino: 'transform(a, x -> x)',
    duckdb: 'list_transform(a, x -> x)',
    pattern: /->/,
    why: 'lambdas differ between the engines',
  },
  // `ARRAY[a, b]` is the array constructor both engines spell alike; a bare `[` is not.
  {
    kind: 'outside',
    trino: 'element_at(a, 1)',
    duckdb: 'a[1]',
    pattern: /(?<!\barray\s*)\[/i,
    why: "list literals and subscripts differ ('[...]' is DuckDB only, arrays index from 1 in Athena); build arrays with ARRAY[...]",
  },
];

/**
 * Functions that mean the same in Athena (Trino) and DuckDB under the same name, checked on both
 * engines. With the macros' names they are the functions rules may call (`SHARED_FUNCTIONS`).
 */
export const SAME_FUNCTIONS: readonly string[] = [
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
  'nullif',
];

/**
 * A timestamp as epoch milliseconds (OCSF `timestamp_t`, a rule's times): one spelling both engines
 * run, DuckDB through the `to_unixtime` macro.
 */
export const epochMsSql = (column: string): string => `CAST(to_unixtime(${column}) * 1000 AS bigint)`;

const MACROS = DIALECT.filter((d) => d.kind === 'macro');

/** DuckDB's side of the shared SQL: one `CREATE MACRO` per Athena function DuckDB spells differently. */
export const ATHENA_MACROS: readonly string[] = MACROS.map((m) => `CREATE MACRO ${m.trino} AS ${m.duckdb}`);

/** Session settings that make DuckDB answer like Athena (whose session time zone is UTC). */
export const DUCKDB_SESSION: readonly string[] = ["SET TimeZone = 'UTC'"];

/** Names the macros define: the functions DuckDB only has through a shim. */
export const SHIMMED_FUNCTIONS: readonly string[] = MACROS.map((m) => m.trino.slice(0, m.trino.indexOf('(')));

/** The functions both engines answer alike: the same ones, and the ones DuckDB has through a macro. */
export const SHARED_FUNCTIONS: ReadonlySet<string> = new Set([...SAME_FUNCTIONS, ...SHIMMED_FUNCTIONS]);

/** The constructs outside the subset, each with why (what differs between the engines). */
export const OUTSIDE_SUBSET: readonly { pattern: RegExp; why: string }[] = DIALECT.flatMap((d) =>
  d.kind === 'outside' ? [{ pattern: d.pattern, why: d.why }] : [],
);

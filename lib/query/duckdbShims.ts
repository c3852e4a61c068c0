/**
 * The one place for DuckDB's side of the SQL that Athena (Trino) and DuckDB share: macros for the
 * Athena functions DuckDB names differently, so saved queries and detection rules run unchanged on
 * both. `lib/detect/sqlSubset.ts` lists the functions rules may use; each one either means the same
 * in both engines or has its macro here.
 */
export const ATHENA_MACROS = [
  // `%Y`, `%m`, `%d` (all the saved queries use) mean the same in both.
  'CREATE MACRO date_format(d, f) AS strftime(d, f)',
  'CREATE MACRO cardinality(a) AS len(a)',
  // Trino: Monday = 1 .. Sunday = 7 (ISO), as DuckDB's isodow; DuckDB's dayofweek has Sunday = 0.
  'CREATE MACRO day_of_week(d) AS isodow(d)',
  'CREATE MACRO approx_distinct(x) AS count(DISTINCT x)',
  'CREATE MACRO regexp_like(s, p) AS regexp_matches(s, p)',
  'CREATE MACRO from_iso8601_timestamp(s) AS CAST(s AS TIMESTAMPTZ)',
  // Seconds since the epoch as a double in both (the OCSF mapping's epoch milliseconds).
  'CREATE MACRO to_unixtime(t) AS epoch(t)',
  // Trino: the 1-based element of an array, NULL past its end (DuckDB's element_at is for maps).
  'CREATE MACRO element_at(a, i) AS list_extract(a, i)',
];

/** Session settings that make DuckDB answer like Athena (whose session time zone is UTC). */
export const DUCKDB_SESSION = ["SET TimeZone = 'UTC'"];

/** Names the macros define: the functions DuckDB only has through a shim. */
export const SHIMMED_FUNCTIONS = ATHENA_MACROS.map((m) => /CREATE MACRO (\w+)/.exec(m)?.[1] ?? '');

import { afterAll, describe, expect, it } from 'vitest';
import { athenaLikeDuckdb } from '../../lib/analytics/sql/athenaLikeDuckdb.ts';
import {
  ATHENA_MACROS,
  DIALECT,
  epochMsSql,
  SAME_FUNCTIONS,
  SHARED_FUNCTIONS,
  SHIMMED_FUNCTIONS,
} from '../../lib/analytics/sql/dialect.ts';
import { calledFunctions, dialectIssues } from '../../lib/analytics/sql/dialectIssues.ts';
import { duckdbSpelling, duckdbType } from '../../lib/analytics/sql/duckdbSpelling.ts';
import { trinoSyntaxErrors } from '../support/trinoSyntaxErrors.ts';

const duckdb = await athenaLikeDuckdb();
const duck = duckdb.connection;
afterAll(() => duckdb.close());

/** DuckDB's answer to a one-value query, with its longs (JSON text) as numbers. */
async function inDuckdb(sql: string): Promise<unknown> {
  const value = (await duck.runAndReadAll(sql)).getRowsJson()[0]?.[0];
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

/**
 * For each construct that differs (by its Trino spelling in DIALECT): a query in Trino SQL on a fixed
 * input, and what Athena's documentation (Trino 3xx functions) says it returns.
 */
const ATHENA_SAYS: Record<string, { sql: string; athena: unknown }> = {
  'date_format(d, f)': {
    sql: "SELECT date_format(TIMESTAMP '2026-11-29 10:00:00', '%Y-%m-%d')",
    athena: '2026-11-29',
  },
  'cardinality(a)': { sql: "SELECT cardinality(ARRAY['a', 'b', 'c'])", athena: 3 },
  // 2026-11-29 is a Sunday: ISO day 7 in Athena.
  'day_of_week(d)': { sql: "SELECT day_of_week(DATE '2026-11-29')", athena: 7 },
  'approx_distinct(x)': {
    sql: "SELECT approx_distinct(x) FROM (VALUES ('a'), ('b'), ('a')) AS v(x)",
    athena: 2,
  },
  // The example of Trino's regexp_like documentation.
  'regexp_like(s, p)': { sql: "SELECT regexp_like('1a 2b 14m', '\\d+b')", athena: true },
  'from_iso8601_timestamp(s)': {
    sql: "SELECT date_diff('millisecond', from_iso8601_timestamp('2026-11-20T10:00:00Z'), from_iso8601_timestamp('2026-11-20T10:00:30.500Z'))",
    athena: 30_500,
  },
  'to_unixtime(t)': {
    sql: "SELECT to_unixtime(CAST('2026-11-20 10:10:00.123' AS timestamp))",
    athena: 1_795_169_400.123,
  },
  // Past the array's end: NULL (the `[]` subscript fails there instead).
  'element_at(a, i)': {
    sql: "SELECT coalesce(element_at(ARRAY['a', 'b'], 5), 'none') || element_at(ARRAY['a', 'b'], 2)",
    athena: 'noneb',
  },
  'array_distinct(a)': {
    // Trino's docs: duplicates removed; its engine keeps each element's first place.
    sql: "SELECT element_at(d, 1) || element_at(d, 2) || element_at(d, 3) || coalesce(element_at(d, 4), '.') FROM (SELECT array_distinct(ARRAY['c', 'a', 'c', 'b', 'a']) AS d) AS t",
    athena: 'cab.',
  },
  'array(varchar)': { sql: "SELECT cardinality(CAST(ARRAY['a', 'b'] AS array(varchar)))", athena: 2 },
};

/** Constructs outside the subset: Trino's grammar refuses DuckDB's spelling, or the engines answer differently. */
const OUTSIDE: Record<
  string,
  { trinoRejects: string } | { duckdbRejects: string } | { duckdb: string; answers: unknown; athena: unknown }
> = {
  'extract(dow FROM d)': { duckdb: "SELECT extract(dow FROM DATE '2026-11-29')", answers: 0, athena: 7 },
  'CAST(x AS date)': { trinoRejects: "SELECT '2026-11-29'::date" },
  "d + INTERVAL '1' DAY": { trinoRejects: "SELECT DATE '2026-11-29' + INTERVAL 1 DAY" },
  'a subquery filtered on row_number()': {
    trinoRejects: 'SELECT x FROM t QUALIFY row_number() OVER (ORDER BY x) = 1',
  },
  "lower(x) LIKE 'a%'": { trinoRejects: "SELECT x ILIKE 'a%' FROM t" },
  // Both parse the lambda; each engine calls the function by its own name.
  'transform(a, x -> x)': { duckdbRejects: 'SELECT transform(ARRAY[1], x -> x + 1)' },
  'element_at(a, 1)': { trinoRejects: "SELECT ['a', 'b']" },
};

describe('DIALECT', () => {
  it('has one DuckDB check for each construct that differs, and no check without its construct', () => {
    const checked = [...Object.keys(ATHENA_SAYS), ...Object.keys(OUTSIDE)].sort();
    expect(checked).toEqual(DIALECT.map((d) => d.trino).sort());
  });

  it.each(DIALECT.filter((d) => d.kind !== 'outside').map((d) => [d.trino, d.duckdb, d] as const))(
    '%s (DuckDB: %s) answers in DuckDB what Athena documents',
    async (trino, duckdb, d) => {
      const check = ATHENA_SAYS[trino];
      if (check === undefined) throw new Error(`no check for ${trino}`);
      expect(trinoSyntaxErrors(check.sql), 'the check is Trino SQL').toEqual([]);
      const duckdbSql = duckdbSpelling(check.sql);
      if (d.kind === 'rewrite') expect(duckdbSql).toContain(duckdb);
      else expect(ATHENA_MACROS).toContain(`CREATE MACRO ${trino} AS ${duckdb}`);
      expect(await inDuckdb(duckdbSql)).toEqual(check.athena);
    },
  );

  it.each(DIALECT.filter((d) => d.kind === 'outside').map((d) => [d.duckdb, d.trino, d] as const))(
    '%s (Trino: %s) is outside the subset: the engines read it differently, and the check finds it',
    async (duckdb, trino, d) => {
      const check = OUTSIDE[trino];
      if (check === undefined) throw new Error(`no check for ${trino}`);
      if ('answers' in check) {
        expect(await inDuckdb(check.duckdb)).toBe(check.answers);
        expect(check.answers).not.toEqual(check.athena);
      } else if ('duckdbRejects' in check) {
        expect(trinoSyntaxErrors(check.duckdbRejects)).toEqual([]);
        await expect(inDuckdb(check.duckdbRejects)).rejects.toThrow(/does not exist/);
      } else {
        expect(trinoSyntaxErrors(check.trinoRejects)).not.toEqual([]);
      }
      expect(d.pattern.test(duckdb)).toBe(true);
      expect(dialectIssues(duckdb)).toContain(d.why);
    },
  );
});

describe('the functions both engines share', () => {
  it.each([
    [
      'date_diff',
      "SELECT date_diff('hour', TIMESTAMP '2026-11-20 10:00:00', TIMESTAMP '2026-11-20 13:30:00')",
      3,
    ],
    ['hour', "SELECT hour(TIMESTAMP '2026-11-20 13:30:00')", 13],
    ['nullif', "SELECT coalesce(nullif('', ''), 'null')", 'null'],
    ['min_by', "SELECT min_by(x, y) FROM (VALUES ('a', 2), ('b', 1)) AS v(x, y)", 'b'],
    [
      'array_agg',
      "SELECT cardinality(array_agg(t.x)) FROM (VALUES (ARRAY['a', 'b'])) AS s(a) CROSS JOIN UNNEST(s.a) AS t(x)",
      2,
    ],
  ])('%s answers in DuckDB, unchanged, what Athena documents', async (name, sql, athena) => {
    expect(SAME_FUNCTIONS).toContain(name);
    expect(trinoSyntaxErrors(sql)).toEqual([]);
    expect(await inDuckdb(sql)).toEqual(athena);
  });

  it('are the same-named ones and the macros, and nothing DuckDB alone has', () => {
    expect([...SHARED_FUNCTIONS].sort()).toEqual([...SAME_FUNCTIONS, ...SHIMMED_FUNCTIONS].sort());
    expect(SHIMMED_FUNCTIONS).toContain('day_of_week');
    expect(dialectIssues('SELECT list_distinct(a), day_of_week(d)')).toEqual([
      'list_distinct() is not in the shared subset',
    ]);
  });
});

describe('calledFunctions', () => {
  it('names the calls, not the SQL words before a ( nor a table alias with its columns', () => {
    expect(
      calledFunctions(
        'SELECT count(*) FROM (VALUES (1)) AS v(x) CROSS JOIN UNNEST(a) AS t(y) WHERE x IN (1)',
      ),
    ).toEqual(['count']);
  });
});

describe('duckdbSpelling', () => {
  it('rewrites Trino array types, nested ones too, and nothing else', () => {
    expect(
      duckdbSpelling('CAST(x AS array(row("a" array(varchar), "b" integer))), array_agg(y), ARRAY[1]'),
    ).toBe('CAST(x AS row("a" varchar[], "b" integer)[]), array_agg(y), ARRAY[1]');
  });
});

describe('duckdbType', () => {
  it.each([
    ['string', 'VARCHAR'],
    ['timestamp', 'TIMESTAMPTZ'],
    ['int', 'INTEGER'],
    ['bigint', 'BIGINT'],
    ['array<string>', 'VARCHAR[]'],
    ['decimal(10,2)', 'VARCHAR'],
  ])('spells the Glue type %s as %s', (glue, duck) => {
    expect(duckdbType(glue)).toBe(duck);
  });
});

describe('epochMsSql', () => {
  it('is Trino SQL that DuckDB answers with the epoch milliseconds Athena gives', async () => {
    const sql = `SELECT ${epochMsSql("from_iso8601_timestamp('2026-11-20T10:10:00.123Z')")}`;
    expect(trinoSyntaxErrors(sql)).toEqual([]);
    expect(await inDuckdb(sql)).toBe(Date.parse('2026-11-20T10:10:00.123Z'));
  });
});

describe('athenaLikeDuckdb', () => {
  it("answers in Athena's session time zone (UTC) whatever the machine's, with every macro defined", async () => {
    expect(await inDuckdb("SELECT current_setting('TimeZone')")).toBe('UTC');
    expect(await inDuckdb("SELECT hour(CAST('2026-11-20 10:30:00+02' AS TIMESTAMPTZ))")).toBe(8);
    const macros = await duck.runAndReadAll(
      "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type = 'macro' AND NOT internal",
    );
    expect(
      macros
        .getRowsJson()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...SHIMMED_FUNCTIONS].sort());
  });
});

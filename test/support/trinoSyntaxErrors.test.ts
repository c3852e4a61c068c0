import { describe, expect, it } from 'vitest';
import { trinoSyntaxErrors } from './trinoSyntaxErrors.ts';

describe('trinoSyntaxErrors', () => {
  it('accepts the Trino the project writes', () => {
    const sql = `WITH s AS (SELECT session_id, max_by(record_id, fetched_at) AS rid FROM history GROUP BY 1)
      SELECT CAST(to_unixtime(t.start_time) * 1000 AS BIGINT) AS time, element_at(d, 1),
             CAST(ROW('a', 1) AS ROW(name varchar, n integer)) AS r
      FROM s CROSS JOIN UNNEST(ARRAY['x', 'y']) AS u(d) JOIN history t ON t.record_id = s.rid
      WHERE date_diff('hour', t.start_time, t.end_time) > 1 AND t.token_hmac IS NOT DISTINCT FROM 'it''s'`;
    expect(trinoSyntaxErrors(sql)).toEqual([]);
  });

  it.each([
    ['a DuckDB :: cast', 'SELECT a::BIGINT FROM t'],
    ['a DuckDB list literal', 'SELECT [1, 2] AS l FROM t'],
    ['a DuckDB struct literal', "SELECT {'a': 1} AS s FROM t"],
    ['QUALIFY', 'SELECT a FROM t QUALIFY row_number() OVER () = 1'],
    ['a missing select list', 'SELECT FROM t WHERE'],
    ['an unbalanced parenthesis', 'SELECT count(a FROM t'],
  ])('rejects %s', (_name, sql) => {
    expect(trinoSyntaxErrors(sql).length).toBeGreaterThan(0);
  });
});

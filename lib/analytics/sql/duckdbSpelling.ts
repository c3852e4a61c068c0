/**
 * Trino SQL as DuckDB runs it: the one spelling the engines do not share (the `rewrite` of
 * lib/analytics/sql/dialect.ts), array types (`array(varchar)` in Trino, `varchar[]` in DuckDB), rewritten;
 * everything else runs unchanged with the macros of lib/analytics/sql/dialect.ts. So an Athena view and its
 * local run are the same text.
 */
export function duckdbSpelling(trinoSql: string): string {
  let out = '';
  let i = 0;
  const open = /\barray\(/gi;
  for (let m = open.exec(trinoSql); m !== null; m = open.exec(trinoSql)) {
    if (m.index < i) continue;
    const start = m.index + m[0].length;
    let depth = 1;
    let j = start;
    for (; j < trinoSql.length && depth > 0; j++) {
      if (trinoSql[j] === '(') depth++;
      else if (trinoSql[j] === ')') depth--;
    }
    if (depth !== 0) throw new SyntaxError(`unbalanced array( at ${m.index}`);
    out += `${trinoSql.slice(i, m.index)}${duckdbSpelling(trinoSql.slice(start, j - 1))}[]`;
    i = j;
    open.lastIndex = j;
  }
  return out + trinoSql.slice(i);
}

/** DuckDB's type for each Glue (Hive) column type the archive's datasets declare. */
const DUCKDB_TYPE_OF_GLUE: Readonly<Record<string, string>> = {
  string: 'VARCHAR',
  timestamp: 'TIMESTAMPTZ',
  int: 'INTEGER',
  bigint: 'BIGINT',
  'array<string>': 'VARCHAR[]',
};

/** A Glue column type as DuckDB spells it (VARCHAR for a type the archive does not declare). */
export const duckdbType = (glueType: string): string => DUCKDB_TYPE_OF_GLUE[glueType] ?? 'VARCHAR';

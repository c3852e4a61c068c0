import { TrinoSQL } from 'dt-sql-parser';

const parser = new TrinoSQL();

/**
 * Where Trino's grammar (the one Athena engine 3 parses, as ANTLR-compiled by dt-sql-parser) rejects
 * `sql`: one line per syntax error, with its line and column. Empty = Trino parses it. Grammar only:
 * it does not resolve tables, columns or function names.
 */
export function trinoSyntaxErrors(sql: string): string[] {
  return parser.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
}

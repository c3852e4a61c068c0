import { loadTrinoGrammar } from '../../lib/analytics/sql/trinoGrammar.ts';

/**
 * Where Trino's grammar (the one Athena engine 3 parses, as ANTLR-compiled by dt-sql-parser) rejects
 * `sql`: one line per syntax error, with its line and column. Empty = Trino parses it. Grammar only:
 * it does not resolve tables, columns or function names. The loader `detect --test` uses.
 */
export const trinoSyntaxErrors = await loadTrinoGrammar();

/** `text` as an SQL string literal (DuckDB and Athena alike): in single quotes, each quote doubled. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

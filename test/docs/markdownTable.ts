/**
 * The rows of the first Markdown table in `text` from index `from` on, as cells (header and separator
 * dropped): split on `|` not escaped as `\|`, then trimmed and unescaped.
 */
export function tableRowsFrom(text: string, from: number): string[][] {
  const lines = text.slice(from).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, '|')),
    );
  }
  return rows;
}

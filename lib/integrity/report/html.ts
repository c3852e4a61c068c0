/** Text made safe for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * A figure on the page, named so that a reader (and the browser test) can find it: the text shown is
 * exactly the value `status --json` or `verify --json` holds.
 */
export function figure(name: string, value: unknown): string {
  return `<span data-figure="${esc(name)}">${esc(value ?? 'none')}</span>`;
}

/** How long ago `iso` was, from `now`, in words ("3 h ago", "2 days ago"); `never` when absent. */
export function ageOf(iso: string | null | undefined, now: Date): string {
  if (!iso) return 'never';
  const ms = now.getTime() - Date.parse(iso);
  if (Number.isNaN(ms)) return 'unknown';
  const h = ms / 3_600_000;
  if (h < 1) return `${Math.max(0, Math.round(ms / 60_000))} min ago`;
  if (h < 48) return `${Math.round(h)} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** A simple table: header cells, then rows of already-escaped cells. */
export function table(head: string[], rows: string[][]): string {
  const th = head.length ? `<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` : '';
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
  return `<table>${th}<tbody>${body}</tbody></table>`;
}

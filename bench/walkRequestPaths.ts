/** One answered history page: its request path and its body. */
export interface AnsweredPage {
  path: string;
  body: string;
}

/**
 * The requests a day walk must make on a stable-order server whose pages are `pages` (every page of
 * every day, as `fetchBound` reads them): each page once, and after a day's last page, when it is full,
 * the page after it, which proves the end (a total that is a whole number of pages may be stale). In
 * the order given, each day's proof right after the last of its pages.
 */
export function walkRequestPaths(pages: readonly AnsweredPage[], pageSize: number): string[] {
  const last = new Map<string, { page: number; full: boolean; at: number }>();
  const out: string[] = [];
  for (const { path, body } of pages) {
    const { day, page } = splitPath(path);
    const parsed = JSON.parse(body) as { content?: unknown[]; size?: number };
    const size = parsed.size && parsed.size > 0 ? parsed.size : pageSize;
    const full = (parsed.content?.length ?? 0) >= size;
    out.push(path);
    const seen = last.get(day);
    // The day's highest page says whether its end needs a proof; the proof follows the day's pages.
    if (!seen || page > seen.page) last.set(day, { page, full, at: out.length - 1 });
    else seen.at = out.length - 1;
  }
  const proofs = [...last.entries()]
    .filter(([, l]) => l.full)
    .map(([day, l]) => ({ at: l.at, path: `${day}?page=${l.page + 1}&size=${pageSize}` }))
    .sort((a, b) => b.at - a.at);
  for (const proof of proofs) out.splice(proof.at + 1, 0, proof.path);
  return out;
}

function splitPath(path: string): { day: string; page: number } {
  const [day = path, query = ''] = path.split('?');
  const page = Number(new URLSearchParams(query).get('page') ?? 0);
  return { day, page };
}

/**
 * The upstream's documented spelling of an instant in UTC, `2025-02-06T16:16:44.571+00:00`:
 * milliseconds and a numeric offset (`shared/seed/tunnel-session-api.md` §2). The archive's timestamp
 * columns hold the instant; this spelling is the one they give back without the original text.
 */
export function formatWireInstant(ms: number): string {
  const dayIndex = Math.floor(ms / DAY_MS);
  let date = dateCache.get(dayIndex);
  if (date === undefined) {
    date = new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);
    if (dateCache.size > 10_000) dateCache.clear();
    dateCache.set(dayIndex, date);
  }
  const t = ms - dayIndex * DAY_MS;
  return `${date}T${pad2(Math.floor(t / 3_600_000))}:${pad2(Math.floor(t / 60_000) % 60)}:${pad2(Math.floor(t / 1000) % 60)}.${pad3(t % 1000)}+00:00`;
}

/**
 * The text the API sent for an instant, when the timestamp column alone cannot give it back: another
 * offset (`+02:00`), `Z`, more or fewer fraction digits, no seconds. Null when the text is exactly
 * {@link formatWireInstant} of the instant, so nothing was lost (the documented, usual case).
 */
export function lostInstantText(text: string, ms: number): string | null {
  return text === formatWireInstant(ms) ? null : text;
}

const DAY_MS = 86_400_000;
/** Formatting runs once per timestamp; the date part repeats, so it is cached per day. */
const dateCache = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

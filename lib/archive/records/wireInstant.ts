/**
 * The upstream's documented spelling of an instant in UTC, `2025-02-06T16:16:44.571+00:00`:
 * milliseconds and a numeric offset (`shared/seed/tunnel-session-api.md` §2). The archive's timestamp
 * columns hold the instant; this spelling is the one they give back without the original text.
 */
export function formatWireInstant(ms: number): string {
  const dayIndex = Math.floor(ms / DAY_MS);
  const t = ms - dayIndex * DAY_MS;
  return `${datePart(dayIndex)}T${pad2(Math.floor(t / 3_600_000))}:${pad2(Math.floor(t / 60_000) % 60)}:${pad2(Math.floor(t / 1000) % 60)}.${pad3(t % 1000)}+00:00`;
}

/**
 * The text the API sent for an instant, when the timestamp column alone cannot give it back: another
 * offset (`+02:00`), `Z`, more or fewer fraction digits, no seconds. Null when the text is exactly
 * {@link formatWireInstant} of the instant, so nothing was lost (the documented, usual case).
 */
export function lostInstantText(text: string, ms: number): string | null {
  // The text was parsed strictly into `ms`, so when it has the documented shape (seconds, three fraction
  // digits, `+00:00`) its fields are the instant's own and formatting it again gives the same text.
  if (text.length === 29 && text.charCodeAt(19) === 46 && text.endsWith('+00:00') && sameInstant(text, ms))
    return null;
  return text === formatWireInstant(ms) ? null : text;
}

/** Whether the documented-shape `text` names `ms`: its date part and its time of day read digit by digit. */
function sameInstant(text: string, ms: number): boolean {
  const dayIndex = Math.floor(ms / DAY_MS);
  const timeOfDay =
    num2(text, 11) * 3_600_000 + num2(text, 14) * 60_000 + num2(text, 17) * 1000 + num3(text, 20);
  return timeOfDay === ms - dayIndex * DAY_MS && text.startsWith(datePart(dayIndex));
}

/** `YYYY-MM-DD` of a day since the epoch; the date part repeats, so it is cached per day. */
function datePart(dayIndex: number): string {
  let date = dateCache.get(dayIndex);
  if (date === undefined) {
    date = new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);
    if (dateCache.size > 10_000) dateCache.clear();
    dateCache.set(dayIndex, date);
  }
  return date;
}

const num2 = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
const num3 = (s: string, i: number) => (s.charCodeAt(i) - 48) * 100 + num2(s, i + 1);

const DAY_MS = 86_400_000;
/** Formatting runs once per timestamp; the date part repeats, so it is cached per day. */
const dateCache = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

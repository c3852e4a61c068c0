/** A calendar day as `YYYY-MM-DD` (UTC). */
export type Day = string;

const DAY_MS = 86_400_000;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export function isDay(s: string): s is Day {
  return (
    DAY_RE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && toDay(new Date(`${s}T00:00:00Z`)) === s
  );
}

/** UTC calendar day of an instant. */
export function toDay(t: Date): Day {
  return dayOfMs(t.getTime());
}

/** UTC calendar day of an instant given as epoch milliseconds (as {@link toDay}, with no `Date` for it). */
export function dayOfMs(ms: number): Day {
  // Rows come day by day: the last day's text is reused (NaN is never equal, and `toISOString` throws on it).
  const dayNumber = Math.floor(ms / DAY_MS);
  if (dayNumber === lastDayNumber) return lastDay;
  const day = new Date(ms).toISOString().slice(0, 10);
  lastDayNumber = dayNumber;
  lastDay = day;
  return day;
}

let lastDayNumber = Number.NaN;
let lastDay: Day = '';

export function addDays(day: Day, n: number): Day {
  return toDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

/** Whole days from `a` to `b` (b - a). */
export function daysBetween(a: Day, b: Day): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/** Inclusive list of days from `from` to `to`. */
export function dayRange(from: Day, to: Day): Day[] {
  const out: Day[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

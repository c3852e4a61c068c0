import { ArchiverError } from '../errors/archiverError.ts';

/**
 * `YYYY-MM-DDThh:mm[:ss[.fraction]]` followed by `Z` or `±hh:mm`. Nothing else: no space separator,
 * no bare dates, no expanded (signed) years, no offset-less local times, no `±hhmm`.
 */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Largest offset Java's `ZoneOffset` (the upstream is a Spring service) can write. */
const MAX_OFFSET_MINUTES = 18 * 60;

/** The outcome of {@link parseInstant}: epoch ms, or why the text is not a strict ISO 8601 instant. */
export type ParsedInstant = { ok: true; ms: number } | { ok: false; reason: string };

/**
 * The one date-time parser of the archive. Accepts only ISO 8601 with an explicit offset (`Z` or
 * `±hh:mm`) that names a real calendar instant: each of year, month, day, hour, minute and second must
 * survive a round trip through `Date.UTC`, so `2026-02-30`, `24:00` and `:60` are refused instead of
 * rolling over, as `Date.parse` would. Digits past milliseconds are truncated. The result does not depend
 * on the host's time zone. Range checks (e.g. not before 2000) belong to the caller, which knows `now`.
 */
export function parseInstant(text: unknown): ParsedInstant {
  if (typeof text !== 'string')
    return { ok: false, reason: `expected an ISO 8601 date-time string, got ${typeof text}` };
  const m = ISO_INSTANT.exec(text);
  if (m === null) {
    return { ok: false, reason: `'${clip(text)}' is not an ISO 8601 date-time with an offset (Z or ±hh:mm)` };
  }
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear undoes that.
  local.setUTCFullYear(year, month - 1, day);
  const roundTrips =
    local.getUTCFullYear() === year &&
    local.getUTCMonth() === month - 1 &&
    local.getUTCDate() === day &&
    local.getUTCHours() === hour &&
    local.getUTCMinutes() === minute &&
    local.getUTCSeconds() === second;
  if (!roundTrips) return { ok: false, reason: `'${clip(text)}' is not a real calendar date-time` };
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const hh = Number(m[10]);
    const mm = Number(m[11]);
    offsetMinutes = (hh * 60 + mm) * (m[9] === '-' ? -1 : 1);
    if (mm > 59 || Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) {
      return { ok: false, reason: `'${clip(text)}' has an impossible UTC offset` };
    }
  }
  return { ok: true, ms: local.getTime() - offsetMinutes * 60_000 };
}

/**
 * Epoch milliseconds of a strict ISO 8601 instant (see {@link parseInstant}); throws `SCHEMA_MISMATCH`
 * otherwise. Used for every upstream date-time: ids, partitions and rows all read times through it.
 */
export function toEpochMs(iso: string): number {
  const parsed = parseInstant(iso);
  if (!parsed.ok) throw new ArchiverError('SCHEMA_MISMATCH', parsed.reason);
  return parsed.ms;
}

/** Bad input is echoed in reasons, but never more than a short prefix of it. */
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

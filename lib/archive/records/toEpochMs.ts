import { ArchiverError } from '../../foundation/index.ts';

/** Largest offset Java's `ZoneOffset` (the upstream is a Spring service) can write. */
const MAX_OFFSET_MINUTES = 18 * 60;
const DAY_MS = 86_400_000;

/** The outcome of {@link parseInstant}: epoch ms, or why the text is not a strict ISO 8601 instant. */
export type ParsedInstant = { ok: true; ms: number } | { ok: false; reason: string };

/**
 * The one date-time parser of the archive. Accepts only `YYYY-MM-DDThh:mm[:ss[.fraction]]` followed by
 * `Z` or `±hh:mm`: no space separator, no bare dates, no expanded (signed) years, no offset-less local
 * times, no `±hhmm`. The fields must name a real calendar instant (month 1..12, a day that exists in
 * that month and year, hour 0..23, minute and second 0..59), so `2026-02-30`, `24:00` and `:60` are
 * refused instead of rolling over as `Date.parse` does. Digits past milliseconds are truncated. The
 * result never depends on the host's time zone. Range checks (e.g. not before 2000) belong to the
 * caller, which knows `now`. Hand-rolled rather than a regex: it runs several times per record.
 */
export function parseInstant(text: unknown): ParsedInstant {
  if (typeof text !== 'string') {
    return { ok: false, reason: `expected an ISO 8601 date-time string, got ${typeof text}` };
  }
  const ms = cachedInstantMs(text);
  if (Number.isFinite(ms)) return { ok: true, ms };
  if (Number.isNaN(ms)) {
    return { ok: false, reason: `'${clip(text)}' is not an ISO 8601 date-time with an offset (Z or ±hh:mm)` };
  }
  if (ms === NOT_CALENDAR) return { ok: false, reason: `'${clip(text)}' is not a real calendar date-time` };
  return { ok: false, reason: `'${clip(text)}' has an impossible UTC offset` };
}

/** Whether `text` is a strict ISO 8601 instant ({@link parseInstant}'s `ok`), with no object made. */
export function isInstant(text: string): boolean {
  return Number.isFinite(cachedInstantMs(text));
}

/**
 * Epoch milliseconds of a strict ISO 8601 instant (see {@link parseInstant}); throws `SCHEMA_MISMATCH`
 * otherwise. Used for every upstream date-time: ids, partitions and rows all read times through it.
 */
export function toEpochMs(iso: string): number {
  if (typeof iso === 'string') {
    const ms = cachedInstantMs(iso);
    if (Number.isFinite(ms)) return ms;
  }
  const parsed = parseInstant(iso);
  if (parsed.ok) return parsed.ms;
  throw new ArchiverError('SCHEMA_MISMATCH', parsed.reason);
}

/**
 * {@link instantMs}, remembering the last two texts: validation and then normalisation read a record's two
 * times back to back. Numbers only, so a parse makes no object.
 */
function cachedInstantMs(text: string): number {
  if (text === lastText0) return lastMs0;
  if (text === lastText1) return lastMs1;
  const ms = instantMs(text);
  if (slot === 0) {
    lastText0 = text;
    lastMs0 = ms;
  } else {
    lastText1 = text;
    lastMs1 = ms;
  }
  slot ^= 1;
  return ms;
}

let lastText0: string | undefined;
let lastMs0 = Number.NaN;
let lastText1: string | undefined;
let lastMs1 = Number.NaN;
let slot = 0;

// Failure markers: not finite, so never confused with an instant (test NaN with Number.isNaN).
const NOT_ISO = Number.NaN;
const NOT_CALENDAR = Number.POSITIVE_INFINITY;
const BAD_OFFSET = Number.NEGATIVE_INFINITY;

function instantMs(s: string): number {
  // Character codes throughout: `s[i]` would make a one-character string of each.
  const n = s.length;
  if (n < 17 || s.charCodeAt(4) !== DASH || s.charCodeAt(7) !== DASH || s.charCodeAt(10) !== T)
    return NOT_ISO;
  if (s.charCodeAt(13) !== COLON) return NOT_ISO;
  const year = digits(s, 0, 4);
  const month = digits2(s, 5);
  const day = digits2(s, 8);
  const hour = digits2(s, 11);
  const minute = digits2(s, 14);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0) return NOT_ISO;
  let i = 16;
  let second = 0;
  let milli = 0;
  if (s.charCodeAt(i) === COLON) {
    second = digits2(s, i + 1);
    if (second < 0) return NOT_ISO;
    i += 3;
    if (s.charCodeAt(i) === DOT) {
      const start = ++i;
      while (i < n && i - start < 9 && isDigit(s.charCodeAt(i))) i++;
      const count = i - start;
      if (count === 0) return NOT_ISO;
      for (let k = 0; k < 3; k++) milli = milli * 10 + (k < count ? s.charCodeAt(start + k) - 48 : 0);
    }
  }
  let offsetMinutes = 0;
  const sign = s.charCodeAt(i);
  if (sign === Z && i + 1 === n) {
    // UTC
  } else if ((sign === PLUS || sign === DASH) && i + 6 === n && s.charCodeAt(i + 3) === COLON) {
    const oh = digits2(s, i + 1);
    const om = digits2(s, i + 4);
    if (oh < 0 || om < 0) return NOT_ISO;
    if (om > 59) return BAD_OFFSET;
    offsetMinutes = (oh * 60 + om) * (sign === DASH ? -1 : 1);
    if (Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) return BAD_OFFSET;
  } else {
    return NOT_ISO;
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NOT_CALENDAR;
  if (hour > 23 || minute > 59 || second > 59) return NOT_CALENDAR;
  const local =
    daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
  return local - offsetMinutes * 60_000;
}

const DASH = 45;
const DOT = 46;
const COLON = 58;
const PLUS = 43;
const T = 84;
const Z = 90;

/** The two ASCII digits at `start` as a number, or -1 when either is not a digit (or missing). */
function digits2(s: string, start: number): number {
  const a = s.charCodeAt(start) - 48;
  const b = s.charCodeAt(start + 1) - 48;
  // Past the end a code is NaN, which fails both range tests.
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The `count` ASCII digits at `start` as a number, or -1 when any is not a digit (or missing). */
function digits(s: string, start: number, count: number): number {
  let value = 0;
  for (let k = start; k < start + count; k++) {
    const code = s.charCodeAt(k);
    if (!isDigit(code)) return -1;
    value = value * 10 + (code - 48);
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Bad input is echoed in reasons, but never more than a short prefix of it. */
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

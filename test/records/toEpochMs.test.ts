import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInstant, toEpochMs } from '../../lib/archive/records/toEpochMs.ts';
import { isoWithOffset } from './historyRecords.ts';

describe('toEpochMs', () => {
  it.each([
    { text: '2025-02-06T16:16:44.571+00:00', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { text: '2025-02-06T16:16:44.571Z', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { text: '2025-02-06T18:16:44.571+02:00', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { text: '2025-02-06T10:46:44.571-05:30', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { text: '2025-02-06T16:16:44Z', ms: Date.UTC(2025, 1, 6, 16, 16, 44) },
    { text: '2025-02-06T16:16Z', ms: Date.UTC(2025, 1, 6, 16, 16) },
    { text: '2025-02-06T16:16:44.5Z', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 500) },
    { text: '2025-02-06T16:16:44.571987654+00:00', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { text: '2024-02-29T23:59:59.999Z', ms: Date.UTC(2024, 1, 29, 23, 59, 59, 999) },
    { text: '2025-01-01T00:30:00+01:00', ms: Date.UTC(2024, 11, 31, 23, 30) },
    { text: '0050-06-01T00:00:00Z', ms: Date.parse('0050-06-01T00:00:00.000Z') },
  ])('reads $text', ({ text, ms }) => {
    expect(toEpochMs(text)).toBe(ms);
  });

  it.each([
    { name: 'a slash date read in the host zone by Date.parse', text: '2026/11/20 10:00:00' },
    { name: 'a bare number Date.parse reads as a year', text: '12' },
    { name: 'a day that does not exist (Date.parse rolls over to March)', text: '2026-02-30T00:00:00Z' },
    { name: 'February 29th of a common year', text: '2025-02-29T00:00:00Z' },
    { name: 'an expanded negative year', text: '-000001-06-01T00:00:00Z' },
    { name: 'an expanded positive year', text: '+002026-06-01T00:00:00Z' },
    { name: 'no offset', text: '2026-11-20T10:00:00' },
    { name: 'no offset, with milliseconds', text: '2025-02-06T16:16:44.571' },
    { name: 'a space instead of T', text: '2026-11-20 10:00:00Z' },
    { name: 'a date only', text: '2026-11-20' },
    { name: 'hour 24', text: '2026-11-20T24:00:00Z' },
    { name: 'minute 60', text: '2026-11-20T10:60:00Z' },
    { name: 'a leap second', text: '2026-12-31T23:59:60Z' },
    { name: 'month 13', text: '2026-13-01T00:00:00Z' },
    { name: 'day 0', text: '2026-11-00T00:00:00Z' },
    { name: 'an offset without a colon', text: '2026-11-20T10:00:00+0100' },
    { name: 'an offset of 19 hours', text: '2026-11-20T10:00:00+19:00' },
    { name: 'offset minutes of 60', text: '2026-11-20T10:00:00+01:60' },
    { name: 'a lower-case z', text: '2026-11-20T10:00:00z' },
    { name: 'trailing text', text: '2026-11-20T10:00:00Z junk' },
    { name: 'leading space', text: ' 2026-11-20T10:00:00Z' },
    { name: 'an RFC 2822 date', text: 'Fri, 20 Nov 2026 10:00:00 GMT' },
    { name: 'words', text: 'yesterday' },
    { name: 'an empty string', text: '' },
    { name: 'non-ASCII digits', text: '２０２６-11-20T10:00:00Z' },
  ])('rejects $name ($text) with SCHEMA_MISMATCH', ({ text }) => {
    expect(() => toEpochMs(text)).toThrow(expect.objectContaining({ code: 'SCHEMA_MISMATCH' }));
  });

  it('agrees with Date.parse on every strict instant, whatever offset spells it (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.integer({ min: -18 * 60, max: 18 * 60 }),
        (ms, offset) => {
          const text = isoWithOffset(ms, offset);
          expect(toEpochMs(text)).toBe(ms);
          expect(toEpochMs(text)).toBe(Date.parse(text));
        },
      ),
    );
  });

  it('accepts exactly the field values a Date.UTC round trip accepts, at the same instant (property)', () => {
    const pad = (v: number, w: number) => String(v).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 0, max: 13 }),
          day: fc.integer({ min: 0, max: 32 }),
          hour: fc.integer({ min: 0, max: 25 }),
          minute: fc.integer({ min: 0, max: 61 }),
          second: fc.integer({ min: 0, max: 61 }),
          milli: fc.integer({ min: 0, max: 999 }),
          offset: fc.integer({ min: -18 * 60, max: 18 * 60 }),
        }),
        ({ year, month, day, hour, minute, second, milli, offset }) => {
          const sign = offset < 0 ? '-' : '+';
          const abs = Math.abs(offset);
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(milli, 3)}${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
          const reference = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, milli));
          reference.setUTCFullYear(year, month - 1, day);
          const real =
            reference.getUTCFullYear() === year &&
            reference.getUTCMonth() === month - 1 &&
            reference.getUTCDate() === day &&
            reference.getUTCHours() === hour &&
            reference.getUTCMinutes() === minute &&
            reference.getUTCSeconds() === second;
          const parsed = parseInstant(text);
          expect(parsed.ok).toBe(real);
          if (parsed.ok) expect(parsed.ms).toBe(reference.getTime() - offset * 60_000);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never throws anything but SCHEMA_MISMATCH and never returns NaN (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/)),
        (text) => {
          const parsed = parseInstant(text);
          if (parsed.ok) expect(Number.isFinite(parsed.ms)).toBe(true);
          else expect(parsed.reason).toMatch(/ISO 8601|calendar|offset/);
        },
      ),
    );
  });
});

describe('parseInstant', () => {
  it('says why, without throwing, for a non-string', () => {
    expect(parseInstant(12)).toEqual({
      ok: false,
      reason: 'expected an ISO 8601 date-time string, got number',
    });
  });

  it('echoes at most a short prefix of long input', () => {
    const parsed = parseInstant('x'.repeat(10_000));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason.length).toBeLessThan(120);
  });
});

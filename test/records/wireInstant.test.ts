import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../lib/archive/records/toEpochMs.ts';
import { formatWireInstant, lostInstantText } from '../../lib/archive/records/wireInstant.ts';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Strict ISO 8601 instants in every spelling the parser takes: offsets, `Z`, 0–9 fraction digits, no seconds. */
const instantText = fc
  .record({
    ms: fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9998, 11, 31) }),
    offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -18 * 60, max: 18 * 60 })),
    zulu: fc.boolean(),
    fraction: fc.integer({ min: -1, max: 9 }),
    extraDigits: fc.nat({ max: 999_999 }),
  })
  .map(({ ms, offsetMinutes, zulu, fraction, extraDigits }) => {
    const local = new Date(ms + offsetMinutes * 60_000).toISOString();
    const frac = `${local.slice(20, 23)}${pad(extraDigits, 6)}`.slice(0, Math.max(0, fraction));
    const time =
      fraction < 0 ? local.slice(0, 16) : `${local.slice(0, 19)}${fraction === 0 ? '' : `.${frac}`}`;
    if (fraction === 0) return `${time}Z`;
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const offset =
      zulu && offsetMinutes === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
    return `${time}${offset}`;
  });

describe('lostInstantText', () => {
  it('keeps exactly the texts that formatting the instant does not give back', () => {
    fc.assert(
      fc.property(instantText, (text) => {
        const parsed = parseInstant(text);
        if (!parsed.ok) return;
        const expected = text === formatWireInstant(parsed.ms) ? null : text;
        expect(lostInstantText(text, parsed.ms)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps a documented-shape text whose fields are not the instant it is stored with', () => {
    const text = '2025-02-06T16:16:44.571+00:00';
    const ms = Date.parse(text);
    expect(lostInstantText(text, ms)).toBeNull();
    expect(lostInstantText(text, ms + 1)).toBe(text);
    expect(lostInstantText(text, ms + 86_400_000)).toBe(text);
    expect(lostInstantText('2025-02-06T16:16:44.571+02:00', ms - 7_200_000)).toBe(
      '2025-02-06T16:16:44.571+02:00',
    );
    expect(lostInstantText('2025-02-06T16:16:44.5710+00:00', ms)).toBe('2025-02-06T16:16:44.5710+00:00');
  });
});

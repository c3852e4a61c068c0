import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayOfMs, toDay } from '../../lib/foundation/clock/day.ts';

/** Instants from 1900 to 2200, in runs of one day and jumps across days, as rows come. */
const instantsArb = fc.array(fc.integer({ min: -2_208_988_800_000, max: 7_258_118_400_000 }), {
  minLength: 1,
  maxLength: 50,
});

describe('dayOfMs and toDay: the UTC calendar day of an instant', () => {
  it('is the date part of the instant’s ISO text, whatever day came before', () => {
    fc.assert(
      fc.property(instantsArb, (instants) => {
        for (const ms of instants) {
          const expected = new Date(ms).toISOString().slice(0, 10);
          expect(dayOfMs(ms)).toBe(expected);
          expect(toDay(new Date(ms))).toBe(expected);
          // The last millisecond of the day and the first of the next fall on either side.
          const start = Math.floor(ms / 86_400_000) * 86_400_000;
          expect(dayOfMs(start - 1)).toBe(new Date(start - 1).toISOString().slice(0, 10));
          expect(dayOfMs(start)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses an instant that is not one (NaN), even right after a day it remembers', () => {
    expect(dayOfMs(0)).toBe('1970-01-01');
    expect(() => dayOfMs(Number.NaN)).toThrow(RangeError);
    expect(() => toDay(new Date(Number.NaN))).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNumber } from '../../lib/archive/records/recordId.ts';

describe('jsonNumber', () => {
  it('writes what JSON.stringify writes, around every boundary of the two-halves path', () => {
    const edges = [
      0,
      1,
      -1,
      999_999_999,
      1e9,
      1e9 + 1,
      2e9 - 1,
      1e15 - 1,
      1e15,
      1e15 + 1,
      2 ** 53 - 1,
      2 ** 53,
    ];
    const multiples = [1_000_000_000, 1_764_000_000_000, 999_999_000_000_000].flatMap((m) => [
      m - 1,
      m,
      m + 1,
    ]);
    for (const n of [
      ...edges,
      ...multiples,
      ...edges.map((e) => -e),
      1.5e12 + 0.5,
      Number.MAX_VALUE,
      5e-324,
    ]) {
      expect(jsonNumber(n), String(n)).toBe(JSON.stringify(n));
    }
    expect(jsonNumber(null)).toBe('null');
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(jsonNumber(n)).toBe(JSON.stringify(n));
    }
  });

  it('property: any safe integer, epoch milliseconds included, and any double', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.maxSafeInteger(),
          fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }),
          fc.double(),
        ),
        (n) => {
          expect(jsonNumber(n)).toBe(JSON.stringify(n));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiPiece, IdTextWriter } from '../../lib/archive/records/idTextWriter.ts';
import { AWKWARD_JSON_CHARACTERS } from './historyRecords.ts';

const writer = new IdTextWriter();
const EMPTY = asciiPiece('');
/** What the writer wrote, read back as UTF-8. */
const written = (w: IdTextWriter): string => Buffer.from(w.bytes()).toString('utf8');
const jsonNumber = (n: number | null): string => written(writer.begin(EMPTY).number(n));

describe('IdTextWriter.number', () => {
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

describe('IdTextWriter.text', () => {
  it('writes the UTF-8 of what JSON.stringify writes: escapes, surrogates, non-ASCII, a text longer than its buffer', () => {
    const texts = ['', ...AWKWARD_JSON_CHARACTERS, '😀', 'x'.repeat(5000), `${'é'.repeat(2000)}\ud800`];
    for (const t of texts) {
      const bytes = Buffer.from(writer.begin(asciiPiece('k:')).text(t).nullableText(null).bytes());
      expect(bytes.equals(Buffer.from(`k:${JSON.stringify(t)}null`, 'utf8')), JSON.stringify(t)).toBe(true);
    }
  });

  it('property: any UTF-16 text, between other values of one text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), fc.string(), (texts, other) => {
        writer.begin(asciiPiece('['));
        for (const t of texts) writer.text(t).raw(asciiPiece(','));
        writer.nullableText(other).raw(asciiPiece(']'));
        const expected = `[${texts.map((t) => `${JSON.stringify(t)},`).join('')}${JSON.stringify(other)}]`;
        expect(Buffer.from(writer.bytes()).equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

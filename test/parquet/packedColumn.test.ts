import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concatPacked,
  isPackedColumn,
  type PackedColumn,
  packedRows,
  packLists,
  packStrings,
  unpackColumn,
} from '../../lib/archive/parquet/packedColumn.ts';

const ascii = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  maxLength: 12,
});

describe('packStrings and packLists', () => {
  it('property: a range of ASCII strings and nulls unpacks to the same values, and ranges joined to the whole', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(ascii, { freq: 3 }), { maxLength: 60 }),
        fc.nat(),
        fc.nat(),
        (values, a, b) => {
          const cut = values.length ? a % (values.length + 1) : 0;
          const whole = packStrings(values, 0, values.length) as PackedColumn;
          expect(unpackColumn(whole)).toEqual(values);
          expect(packedRows(whole)).toBe(values.length);
          const head = packStrings(values, 0, cut) as PackedColumn;
          const tail = packStrings(values, cut, values.length) as PackedColumn;
          expect(unpackColumn(head)).toEqual(values.slice(0, cut));
          expect(concatPacked([head, tail])).toEqual(whole);
          const lists = values.map((v, i) =>
            v === null ? [] : Array.from({ length: (b + i) % 3 }, () => v),
          );
          const packedLists = packLists(lists, 0, lists.length) as PackedColumn;
          expect(unpackColumn(packedLists)).toEqual(lists);
          expect(
            concatPacked([
              packLists(lists, 0, cut) as PackedColumn,
              packLists(lists, cut, lists.length) as PackedColumn,
            ]),
          ).toEqual(packedLists);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads undefined as null, and packs nothing past ASCII or of another type', () => {
    expect(unpackColumn(packStrings(['a', undefined, ''], 0, 3) as PackedColumn)).toEqual(['a', null, '']);
    for (const value of ['é', '\u0080', '\ud800', '日本', 1, {}, ['a']])
      expect(packStrings(['ok', value], 0, 2), String(value)).toBeUndefined();
    expect(packStrings(['é', 'ok'], 1, 2)).toBeDefined();
    expect(packLists([['a'], ['é']], 0, 2)).toBeUndefined();
    expect(packLists([['a'], 'a'], 0, 2)).toBeUndefined();
    expect(packLists([['a'], [null]], 0, 2)).toBeUndefined();
  });

  it('tells packed columns from arrays, typed arrays included', () => {
    expect(isPackedColumn(packStrings(['a'], 0, 1))).toBe(true);
    expect(isPackedColumn(packLists([['a']], 0, 1))).toBe(true);
    for (const values of [['a'], new Int32Array(2), new BigInt64Array(1), null, 'a', { kind: 'other' }])
      expect(isPackedColumn(values), String(values)).toBe(false);
  });
});

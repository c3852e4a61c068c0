import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiByteViews } from '../../lib/parquet/asciiByteViews.ts';

const encoder = new TextEncoder();
const bytesOf = (views: unknown[]) => views.map((v) => (v === null ? null : Array.from(v as Uint8Array)));
const utf8Of = (values: (string | null)[]) =>
  values.map((v) => (v === null ? null : Array.from(encoder.encode(v))));

const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) });

describe('asciiByteViews', () => {
  it('gives each ASCII string its UTF-8 bytes, as a view of one length per string; nulls stay null', () => {
    const values = ['a1b2', null, '', '{"k":"v"}\u0000\u007f', '0123456789abcdef0123456789abcdef'];
    const views = asciiByteViews(values) as unknown[];
    expect(bytesOf(views)).toEqual(utf8Of(values));
    const buffers = new Set(views.filter((v) => v !== null).map((v) => (v as Uint8Array).buffer));
    expect(buffers.size).toBe(1);
    expect(views.map((v) => (v === null ? null : (v as Uint8Array).byteLength))).toEqual(
      values.map((v) => (v === null ? null : v.length)),
    );
  });

  it.each([
    ['Latin-1', ['plain', 'é']],
    ['CJK', ['日本']],
    ['astral', ['emoji-😀']],
    ['lone surrogate', ['a\ud800b']],
    ['C1 control', ['\u0085']],
  ])('leaves a column with a %s character to the writer (undefined)', (_, values) => {
    expect(asciiByteViews(values)).toBeUndefined();
  });

  it('leaves columns that hold no string, or anything but strings and nulls, to the writer', () => {
    expect(asciiByteViews([])).toBeUndefined();
    expect(asciiByteViews([null, null])).toBeUndefined();
    expect(asciiByteViews(['a', 1])).toBeUndefined();
    expect(asciiByteViews(['a', undefined])).toBeUndefined();
    expect(asciiByteViews([new Uint8Array([1])])).toBeUndefined();
  });

  it('property: views equal TextEncoder for ASCII columns; any non-ASCII string leaves the column as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.option(ascii, { nil: null }), { maxLength: 60 }), (values) => {
        const views = asciiByteViews(values);
        if (values.some((v) => v !== null)) expect(bytesOf(views as unknown[])).toEqual(utf8Of(values));
        else expect(views).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.option(ascii, { nil: null }), { maxLength: 30 }),
        fc
          .string({ unit: 'binary', minLength: 1 })
          .filter((s) => [...s].some((c) => (c.codePointAt(0) as number) > 0x7f)),
        fc.nat(),
        (values, wide, at) => {
          const column = [...values];
          column.splice(at % (column.length + 1), 0, wide);
          expect(asciiByteViews(column)).toBeUndefined();
        },
      ),
    );
  });
});

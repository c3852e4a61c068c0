import fc from 'fast-check';
import { ByteWriter } from 'hyparquet-writer';
import { deltaBinaryPack } from 'hyparquet-writer/src/delta.js';
import { describe, expect, it } from 'vitest';
import { deltaPackSafeIntegers, MAX_SAFE_SPREAD } from '../../lib/archive/parquet/deltaPackSafeIntegers.ts';

/** What hyparquet-writer writes for an INT64 column: its values reach the encoder as BigInts. */
function library(values: number[]): Uint8Array {
  const writer = new ByteWriter();
  deltaBinaryPack(writer, values.map(BigInt), 'INT64');
  return writer.getBytes();
}

function ours(values: unknown[]): Uint8Array | undefined {
  const writer = new ByteWriter();
  return deltaPackSafeIntegers(writer, values) ? writer.getBytes() : undefined;
}

const NOW = 1_764_000_000_000;

describe('deltaPackSafeIntegers', () => {
  it('writes the library’s bytes at every block and miniblock edge, for constant, rising and falling runs', () => {
    for (const n of [1, 2, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257, 1000]) {
      const shapes = [
        Array.from({ length: n }, () => NOW),
        Array.from({ length: n }, (_, i) => NOW + i * 1000),
        Array.from({ length: n }, (_, i) => NOW - i * 37),
        Array.from({ length: n }, (_, i) => (i % 2 ? NOW : NOW + 2 ** 44)),
        Array.from({ length: n }, (_, i) => -(2 ** 40) + ((i * 7919) % 100_003)),
        Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : i)),
      ];
      for (const values of shapes)
        expect(ours(values), `${n}: ${values.slice(0, 3)}`).toEqual(library(values));
    }
  });

  it('property: the library’s bytes for any column of safe integers spread at most 2^45', () => {
    const column = fc.integer({ min: -(2 ** 52), max: 2 ** 52 }).chain((base) =>
      fc.integer({ min: 0, max: 45 }).chain((bits) =>
        fc.array(
          fc.integer({ min: 0, max: 2 ** bits }).map((d) => base + d),
          { minLength: 1, maxLength: 700 },
        ),
      ),
    );
    fc.assert(
      fc.property(column, (values) => {
        expect(ours(values)).toEqual(library(values));
      }),
      { numRuns: 400 },
    );
  });

  it('leaves to the library what it cannot write exactly, having written nothing', () => {
    for (const values of [
      [],
      [NOW, 2 ** 53],
      [NOW, 1.5],
      [NOW, null],
      [NOW, 10n],
      [0, MAX_SAFE_SPREAD + 1],
    ]) {
      const writer = new ByteWriter();
      expect(deltaPackSafeIntegers(writer, values), String(values)).toBe(false);
      expect(writer.offset).toBe(0);
    }
    expect(ours([0, MAX_SAFE_SPREAD])).toEqual(library([0, MAX_SAFE_SPREAD]));
    expect(ours([MAX_SAFE_SPREAD, 0, MAX_SAFE_SPREAD])).toEqual(
      library([MAX_SAFE_SPREAD, 0, MAX_SAFE_SPREAD]),
    );
  });
});

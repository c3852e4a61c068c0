import fc from 'fast-check';
import type { SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder } from 'hyparquet-writer/src/types.js';
import { describe, expect, it } from 'vitest';
import { schemaElements } from '../../lib/archive/parquet/historySchema.ts';
import { parquetCompressors } from '../../lib/archive/parquet/parquetCompression.ts';
import { writeAsciiStringColumn } from '../../lib/archive/parquet/writeAsciiStringColumn.ts';

type Shape = 'required' | 'optional' | 'list';

/** A one-column schema of `shape`, and the column encoder the library would build for it. */
function encoderFor(
  shape: Shape,
  options: { encoding?: 'PLAIN' | 'RLE_DICTIONARY' | undefined; stats: boolean; pageSize: number },
) {
  const elements = schemaElements({
    name: 'c',
    kind: shape === 'list' ? 'string_list' : 'string',
    nullable: shape === 'optional',
  });
  const schema: SchemaElement[] = [{ name: 'root', num_children: 1 }, ...elements];
  const leafPath = schemaPathResolver(schema)(['c']);
  while ((leafPath.at(-1)?.children.length ?? 0) > 0) leafPath.push(leafPath.at(-1)?.children[0] as never);
  const schemaPath = leafPath.map((node) => node.element);
  const column = {
    columnName: schemaPath
      .slice(1)
      .map((s) => s.name)
      .join('.'),
    element: schemaPath.at(-1),
    schemaPath,
    codec: 'GZIP',
    compressors: parquetCompressors('GZIP'),
    stats: options.stats,
    pageSize: options.pageSize,
    columnIndex: false,
    offsetIndex: false,
    encoding: options.encoding,
  } as unknown as ColumnEncoder;
  return { column, leafPath };
}

/** What a writer wrote (bytes) and returned (the chunk, offsets and sizes), for comparison. */
function written(write: (writer: ByteWriter) => { chunk: unknown } | undefined) {
  const writer = new ByteWriter();
  writer.appendBytes(new Uint8Array(7)); // offsets do not start at 0 in a file
  const result = write(writer);
  return result === undefined ? undefined : { bytes: Buffer.from(writer.getBytes()), chunk: result.chunk };
}

const ascii = fc.string({ unit: fc.constantFrom(...'abcdefghij.-_@0123456789'), maxLength: 24 });
const anyText = fc.oneof(
  { weight: 4, arbitrary: ascii },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

describe('writeAsciiStringColumn', () => {
  it('property: writes what the library writes, chunk metadata included, for every shape, encoding and page size', () => {
    const shape = fc.constantFrom<Shape>('required', 'optional', 'list');
    const encoding = fc.constantFrom(undefined, 'PLAIN' as const);
    // Few distinct values (a dictionary pays), or many (it does not), up to 300 of them (9-bit indexes).
    const pool = fc.array(anyText, { minLength: 1, maxLength: 300 });
    const cases = fc.record({
      shape,
      encoding,
      stats: fc.boolean(),
      pageSize: fc.integer({ min: 8, max: 4096 }),
      pool,
      n: fc.integer({ min: 1, max: 400 }),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(cases, ({ shape, encoding, stats, pageSize, pool, n, seed }) => {
        let state = seed >>> 0;
        const next = () => {
          state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
          return state;
        };
        const pick = () => pool[next() % pool.length] as string;
        const rows: unknown[] = Array.from({ length: n }, () => {
          if (shape === 'list') return Array.from({ length: next() % 4 }, pick);
          return shape === 'optional' && next() % 4 === 0 ? null : pick();
        });
        const { column, leafPath } = encoderFor(shape, { encoding, stats, pageSize });
        const ours = written((writer) => writeAsciiStringColumn(writer, column, rows));
        const theirs = written((writer) =>
          writeColumn({ writer, column, pageData: encodeNestedValues(leafPath, rows) }),
        );
        const strings = rows.flat().filter((v): v is string => typeof v === 'string');
        if (strings.some((s) => Buffer.byteLength(s) !== s.length)) {
          expect(ours).toBeUndefined();
          return;
        }
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('writes a dictionary the library finds pays, and several pages of its indexes, where the library does', () => {
    for (const encoding of [undefined] as const) {
      for (const shape of ['optional', 'list'] as const) {
        const rows = Array.from({ length: 500 }, (_, i) =>
          shape === 'list'
            ? [`u${i % 7}.example`, `v${i % 3}.example`]
            : i % 5 === 0
              ? null
              : `u${i % 9}@example.com`,
        );
        const { column, leafPath } = encoderFor(shape, { encoding, stats: true, pageSize: 64 });
        const ours = written((writer) => writeAsciiStringColumn(writer, column, rows));
        const theirs = written((writer) =>
          writeColumn({ writer, column, pageData: encodeNestedValues(leafPath, rows) }),
        );
        expect(ours).toEqual(theirs);
        if (ours === undefined) throw new Error('the writer left an ASCII column to the library');
        const meta = (
          ours.chunk as { meta_data: { encodings: string[]; encoding_stats: { count: number }[] } }
        ).meta_data;
        // These few values always make the dictionary pay, and 500 rows at 64 bytes make many pages.
        expect(meta.encodings).toEqual(['PLAIN', 'RLE_DICTIONARY']);
        expect(meta.encoding_stats[1]?.count).toBeGreaterThan(5);
      }
    }
  });

  it('leaves to the library what it does not write: other types, encodings, options, and values the library refuses', () => {
    const { column } = encoderFor('required', { stats: true, pageSize: 1024 });
    const none = (c: ColumnEncoder, rows: unknown[]) =>
      written((writer) => writeAsciiStringColumn(writer, c, rows));
    expect(none({ ...column, encoding: 'DELTA_BYTE_ARRAY' } as ColumnEncoder, ['a'])).toBeUndefined();
    // A forced dictionary stays the library's (this writer gained nothing there, bench/PROFILE.md).
    expect(none({ ...column, encoding: 'RLE_DICTIONARY' } as ColumnEncoder, ['a'])).toBeUndefined();
    expect(
      none({ ...column, element: { ...column.element, type: 'INT32' } } as ColumnEncoder, [1]),
    ).toBeUndefined();
    expect(none({ ...column, columnIndex: true } as ColumnEncoder, ['a'])).toBeUndefined();
    expect(none(column, ['a', null])).toBeUndefined();
    expect(none(column, ['a', 1])).toBeUndefined();
    expect(none(encoderFor('list', { stats: true, pageSize: 1024 }).column, [['a'], 'b'])).toBeUndefined();
    expect(none(encoderFor('list', { stats: true, pageSize: 1024 }).column, [['a', null]])).toBeUndefined();
    expect(none(column, ['a', 'é'])).toBeUndefined();
  });
});

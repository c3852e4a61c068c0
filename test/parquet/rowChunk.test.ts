import { serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HISTORY_COLUMN_NAMES, HISTORY_TIMESTAMP_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { type RowChunk, RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { recordFrom, recordPartsArb, TEST_TOKEN_KEY } from '../records/historyRecords.ts';
import { edgeCaseRows } from './historyRows.ts';

/**
 * The chunk the schema's column list gives, column by column (each value read by its column's name,
 * timestamps as epoch ms) with the payload rule the row-group cut is made by: a string's UTF-16 length, a
 * list's items' lengths plus 4 each, 8 for anything else.
 */
function chunkBySchema(rows: readonly ArchiveRow[]): RowChunk {
  const chunk: RowChunk = { rows: 0, columns: HISTORY_COLUMN_NAMES.map(() => []), bytes: [] };
  for (const row of rows) {
    let payload = 0;
    HISTORY_COLUMN_NAMES.forEach((name, i) => {
      const value = row[name];
      const column = chunk.columns[i] as unknown[];
      if (HISTORY_TIMESTAMP_COLUMNS.has(name)) {
        column.push(value === null ? null : (value as Date).getTime());
        payload += 8;
        return;
      }
      column.push(value);
      if (typeof value === 'string') payload += value.length;
      else if (Array.isArray(value)) for (const item of value) payload += String(item).length + 4;
      else payload += 8;
    });
    chunk.bytes.push(payload);
    chunk.rows++;
  }
  return chunk;
}

/** A copy of a chunk whose every array is built by `push`, so packed (`map` may build a holey one). */
function pushedCopy(chunk: RowChunk): RowChunk {
  const pushed = <T>(items: readonly T[]): T[] => {
    const out: T[] = [];
    for (const item of items) out.push(item);
    return out;
  };
  const columns: unknown[][] = [];
  for (const column of chunk.columns) columns.push(pushed(column));
  return { rows: chunk.rows, columns, bytes: pushed(chunk.bytes) };
}

const policyArb = fc.constantFrom('keep', 'hash', 'drop') as fc.Arbitrary<'keep' | 'hash' | 'drop'>;
const rowArb = fc
  .tuple(recordPartsArb, policyArb)
  .map(([parts, tokenPolicy]) =>
    toArchiveRow(recordFrom(parts), { tokenPolicy, tokenKey: TEST_TOKEN_KEY, archivedAt: new Date(1.7e12) }),
  );

describe('RowChunkBuilder', () => {
  it('puts each value in its schema column and counts each row the schema way', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 20 }), (rows) => {
        const builder = new RowChunkBuilder();
        const payloads = rows.map((row) => builder.push(row));
        const expected = chunkBySchema(rows);
        expect(builder.take()).toStrictEqual(expected);
        expect(payloads).toEqual(expected.bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('holds the awkward rows (nulls, empty lists, non-ASCII, extras) as the schema does', () => {
    const rows = edgeCaseRows();
    const builder = new RowChunkBuilder();
    for (const row of rows) builder.push(row);
    expect(builder.take()).toStrictEqual(chunkBySchema(rows));
  });

  it('gives the same chunk at any capacity, fewer rows than it or more, and clones it as packed columns', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 12 }), fc.integer({ min: 0, max: 16 }), (rows, capacity) => {
        const builder = new RowChunkBuilder(capacity);
        for (const row of rows) builder.push(row);
        const taken = builder.take();
        const expected = chunkBySchema(rows);
        expect(taken).toStrictEqual(expected);
        // A column with a hole is cloned as a sparse array, a different (and slower) serialization.
        expect(serialize(taken).equals(serialize(pushedCopy(expected)))).toBe(true);
        // The next chunk starts empty, at the same capacity.
        builder.push(rows[0] ?? (edgeCaseRows()[0] as ArchiveRow));
        expect(builder.take()).toStrictEqual(chunkBySchema([rows[0] ?? (edgeCaseRows()[0] as ArchiveRow)]));
      }),
      { numRuns: 200 },
    );
  });

  it('starts an empty chunk once one is taken', () => {
    const builder = new RowChunkBuilder();
    builder.push(edgeCaseRows()[0] as ArchiveRow);
    expect(builder.take().rows).toBe(1);
    expect(builder.rows).toBe(0);
    expect(builder.take()).toStrictEqual(chunkBySchema([]));
  });
});

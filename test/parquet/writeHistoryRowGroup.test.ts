import fc from 'fast-check';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { historyColumnData } from '../../lib/parquet/historyColumnData.ts';
import { HISTORY_COLUMN_NAMES, HISTORY_PARQUET_SCHEMA } from '../../lib/parquet/historySchema.ts';
import { type ParquetCompression, parquetCompressors } from '../../lib/parquet/parquetCompression.ts';
import { RowChunkBuilder } from '../../lib/parquet/rowChunk.ts';
import { writeHistoryRowGroup } from '../../lib/parquet/writeHistoryRowGroup.ts';
import { edgeCaseRows } from './historyRows.ts';

const TIME_COLUMNS = ['start_time', 'end_time', 'archived_at'].map((n) =>
  HISTORY_COLUMN_NAMES.indexOf(n as (typeof HISTORY_COLUMN_NAMES)[number]),
);

/** The edge-case rows repeated to `rows`, in columns as the draft writer holds a row group. */
function group(rows: number): unknown[][] {
  const builder = new RowChunkBuilder();
  const base = edgeCaseRows();
  for (let i = 0; i < rows; i++) builder.push(base[i % base.length] as (typeof base)[number]);
  return builder.take().columns;
}

/** A whole file of these row groups, written by `write` (ours or the library's), as bytes. */
function file(
  groups: unknown[][][],
  codec: ParquetCompression | 'UNCOMPRESSED',
  write: (parquet: ParquetWriter, g: unknown[][]) => void,
): Uint8Array {
  const writer = new ByteWriter();
  const parquet = new ParquetWriter({
    writer,
    schema: HISTORY_PARQUET_SCHEMA,
    codec,
    compressors: codec === 'UNCOMPRESSED' ? {} : parquetCompressors(codec),
    statistics: true,
    createdBy: 'test',
  });
  for (const g of groups) write(parquet, g);
  parquet.finish();
  return writer.getBytes();
}

const library = (parquet: ParquetWriter, g: unknown[][]) =>
  void parquet.write({ columnData: historyColumnData(g), rowGroupSize: (g[0] as unknown[]).length });
const ours = (parquet: ParquetWriter, g: unknown[][]) =>
  void writeHistoryRowGroup(parquet, historyColumnData(g), (g[0] as unknown[]).length);

describe('writeHistoryRowGroup', () => {
  it('writes the library’s file, byte for byte, for the edge-case rows in groups of every size', () => {
    for (const codec of ['GZIP', 'UNCOMPRESSED'] as const) {
      const groups = [1, 2, 127, 128, 129, 1000].map(group);
      expect(file(groups, codec, ours)).toEqual(file(groups, codec, library));
    }
  });

  it('property: the library’s file for arbitrary timestamps, nulls and spreads (the widest left to the library)', () => {
    const instant = fc.oneof(
      fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }),
      fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
      fc.constant(0),
    );
    const timestamps = fc
      .integer({ min: 1, max: 400 })
      .chain((n) =>
        fc.tuple(
          fc.array(instant, { minLength: n, maxLength: n }),
          fc.array(fc.option(instant, { freq: 3 }), { minLength: n, maxLength: n }),
          instant,
        ),
      );
    fc.assert(
      fc.property(timestamps, ([starts, ends, archived]) => {
        const g = group(starts.length);
        g[TIME_COLUMNS[0] as number] = starts;
        g[TIME_COLUMNS[1] as number] = ends;
        g[TIME_COLUMNS[2] as number] = starts.map(() => archived);
        expect(file([g], 'GZIP', ours)).toEqual(file([g], 'GZIP', library));
      }),
      { numRuns: 150 },
    );
  });

  it('writes an all-null timestamp column of a group as the library does', () => {
    const g = group(300);
    g[TIME_COLUMNS[1] as number] = (g[0] as unknown[]).map(() => null);
    expect(file([g], 'GZIP', ours)).toEqual(file([g], 'GZIP', library));
  });
});

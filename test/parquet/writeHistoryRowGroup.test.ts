import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter, type ParquetWriter } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer/src/types.js';
import { describe, expect, it } from 'vitest';
import { type GroupColumn, historyColumnData } from '../../lib/archive/parquet/historyColumnData.ts';
import { HISTORY_COLUMN_NAMES } from '../../lib/archive/parquet/historySchema.ts';
import { packHistoryColumns } from '../../lib/archive/parquet/packHistoryColumns.ts';
import type { ParquetCompression } from '../../lib/archive/parquet/parquetCompression.ts';
import { READ_COMPRESSORS } from '../../lib/archive/parquet/readCompressors.ts';
import { RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import {
  writeHistoryRowGroup,
  writeHistoryRowGroupYielding,
} from '../../lib/archive/parquet/writeHistoryRowGroup.ts';
import { edgeCaseRows, historyParquetWriter } from './historyRows.ts';

const columnIndex = (n: string) => HISTORY_COLUMN_NAMES.indexOf(n as (typeof HISTORY_COLUMN_NAMES)[number]);
const TIME_COLUMNS = ['start_time', 'end_time', 'archived_at'].map(columnIndex);
/** The columns written DELTA_LENGTH_BYTE_ARRAY without statistics: two REQUIRED, two OPTIONAL. */
const [RECORD_ID, CLIENT_IP, CLIENT_ADDRESS, EXTRA_JSON] = [
  'record_id',
  'client_ip',
  'client_address',
  'extra_json',
].map(columnIndex) as [number, number, number, number];
/** Columns the library writes PLAIN unless a dictionary pays: a list and two OPTIONAL flat ones. */
const [DOMAINS, TOKEN_VALUE, START_TIME_TEXT] = ['domains', 'token_value', 'start_time_text'].map(
  columnIndex,
) as [number, number, number];

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
  const parquet = historyParquetWriter(writer, codec);
  for (const g of groups) write(parquet, g);
  parquet.finish();
  return writer.getBytes();
}

/**
 * The group's columns with the file's compressors only: the library has no compressors of a column's own, so
 * the two writers are compared byte for byte on these (the id columns' own are tested apart, below).
 */
const fileCompressorsOnly = (g: readonly GroupColumn[]) =>
  historyColumnData(g).map(({ compressors: _own, ...column }) => column);
const library = (parquet: ParquetWriter, g: unknown[][]) =>
  void parquet.write({
    columnData: fileCompressorsOnly(g) as ColumnSource[],
    rowGroupSize: (g[0] as unknown[]).length,
  });
const ours = (parquet: ParquetWriter, g: unknown[][]) =>
  void writeHistoryRowGroup(parquet, fileCompressorsOnly(g), (g[0] as unknown[]).length);
/** Ours from the group as the draft writer holds it while it fills: every column that packs, packed. */
const oursPacked = (parquet: ParquetWriter, g: unknown[][]) => {
  const rows = (g[0] as unknown[]).length;
  void writeHistoryRowGroup(parquet, fileCompressorsOnly(packHistoryColumns(g, 0, rows)), rows);
};
/** Ours, from the group's arrays and packed, both the library's file byte for byte. */
function expectLibraryFile(groups: unknown[][][], codec: ParquetCompression | 'UNCOMPRESSED'): Uint8Array {
  const theirs = Buffer.from(file(groups, codec, library));
  const mine = file(groups, codec, ours);
  // Compared as buffers: vitest's deep equality walks a large array element by element.
  expect(theirs.equals(mine), 'from arrays').toBe(true);
  expect(theirs.equals(file(groups, codec, oursPacked)), 'packed').toBe(true);
  return mine;
}
/** What the archive writes: each column with its own compressors (the hex ids as digests). */
const archived = (parquet: ParquetWriter, g: unknown[][]) =>
  void writeHistoryRowGroup(parquet, historyColumnData(g), (g[0] as unknown[]).length);

describe('writeHistoryRowGroup', () => {
  it('writes the library’s file, byte for byte, for the edge-case rows in groups of every size', () => {
    for (const codec of ['GZIP', 'UNCOMPRESSED'] as const) {
      const groups = [1, 2, 127, 128, 129, 1000].map(group);
      expectLibraryFile(groups, codec);
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
        expectLibraryFile([g], 'GZIP');
      }),
      { numRuns: 150 },
    );
  });

  it('writes an all-null timestamp column of a group as the library does', () => {
    const g = group(300);
    g[TIME_COLUMNS[1] as number] = (g[0] as unknown[]).map(() => null);
    expectLibraryFile([g], 'GZIP');
  });

  it('property: the library’s file for arbitrary unique-string columns (ASCII, empty, nulls, past ASCII, lone surrogates)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('', '\ud800', '\udc00x', 'é', '\u007f', '\u0080'),
    );
    const columns = fc
      .integer({ min: 1, max: 300 })
      .chain((n) =>
        fc.tuple(
          fc.array(text, { minLength: n, maxLength: n }),
          fc.array(fc.option(text, { freq: 3 }), { minLength: n, maxLength: n }),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(columns, ([required, optional, allNull]) => {
        const g = group(required.length);
        g[RECORD_ID] = required;
        g[CLIENT_IP] = required.map((s) => asciiOnly(s, 'a'));
        g[CLIENT_ADDRESS] = optional;
        g[EXTRA_JSON] = allNull ? optional.map(() => null) : optional.map((s) => s && asciiOnly(s, ''));
        expectLibraryFile([g], 'GZIP');
      }),
      { numRuns: 150 },
    );
  });

  it('cuts a unique-string column into pages where the library does (over 1 MiB of values)', () => {
    const rows = 700;
    const g = group(rows);
    // About 1.4 MiB a column: two pages each, the optional one with nulls on both sides of the cut.
    g[RECORD_ID] = Array.from({ length: rows }, (_, i) => `${i}`.padEnd(2_000 + (i % 7), 'x'));
    g[CLIENT_ADDRESS] = Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : `${i}`.repeat(700)));
    const ourFile = expectLibraryFile([g], 'UNCOMPRESSED');
    for (const name of ['record_id', 'client_address']) {
      const pages = dataPageRows(ourFile, name);
      expect(pages).toHaveLength(2);
      expect((pages[0] as number) + (pages[1] as number)).toBe(rows);
    }
    expect(dataPageRows(file([group(rows)], 'UNCOMPRESSED', ours), 'record_id')).toEqual([rows]);
  });

  it('property: the library’s file for arbitrary lists and plain strings (repeats that make a dictionary pay, empty lists, past ASCII)', () => {
    const text = fc.oneof(
      { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      { weight: 3, arbitrary: fc.constantFrom('a.example', 'b.a.pinggy.link', '', 'é.example') },
    );
    // Draws from a few values make a column a dictionary pays for; the library decides, not this writer.
    const few = fc.constantFrom('x.a.pinggy.link', 'y.a.pinggy.link', 'z.example');
    const columns = fc
      .integer({ min: 1, max: 300 })
      .chain((n) =>
        fc.tuple(
          fc.array(fc.array(fc.oneof(text, few), { maxLength: 4 }), { minLength: n, maxLength: n }),
          fc.array(fc.option(fc.oneof(text, few), { freq: 2 }), { minLength: n, maxLength: n }),
          fc.array(fc.option(few, { freq: 5 }), { minLength: n, maxLength: n }),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(columns, ([domains, tokens, texts, ascii]) => {
        const g = group(domains.length);
        g[DOMAINS] = ascii ? domains.map((list) => list.map((d) => asciiOnly(d, 'q'))) : domains;
        g[TOKEN_VALUE] = tokens;
        g[START_TIME_TEXT] = texts;
        expectLibraryFile([g], 'GZIP');
      }),
      { numRuns: 150 },
    );
  });

  it('cuts a list column into pages where the library does, at row boundaries (over 1 MiB of values)', () => {
    const rows = 600;
    const g = group(rows);
    // About 1.5 MiB: rows of 0–3 long domains, so a page's last row spans the 1 MiB mark.
    g[DOMAINS] = Array.from({ length: rows }, (_, i) =>
      Array.from({ length: i % 4 }, (_, j) => `${i}-${j}.`.padEnd(1_700 + j, 'd')),
    );
    const ourFile = expectLibraryFile([g], 'UNCOMPRESSED');
    const pages = dataPageRows(ourFile, 'domains');
    expect(pages).toHaveLength(2);
    expect((pages[0] as number) + (pages[1] as number)).toBe(rows);
  });

  it('writes the token digests of a group with none (the drop policy) as the library does', () => {
    const g = group(300);
    for (const name of ['token_hmac', 'virtual_token_hmac'])
      g[columnIndex(name)] = (g[0] as unknown[]).map(() => null);
    expectLibraryFile([g], 'GZIP');
  });

  it('yielding: the same bytes, with a turn of the event loop between two columns (none after the last)', async () => {
    const groups = [1, 129, 1000].map(group);
    const writer = new ByteWriter();
    const parquet = historyParquetWriter(writer, 'GZIP');
    let turns = 0;
    for (const g of groups) {
      const columns = historyColumnData(g);
      const before = turns;
      // A callback waiting for the loop: it runs at each of the writer's turns, and at no other time.
      const count = () => {
        if (done) return;
        turns++;
        setImmediate(count);
      };
      let done = false;
      setImmediate(count);
      await writeHistoryRowGroupYielding(parquet, columns, (g[0] as unknown[]).length);
      done = true;
      expect(turns - before).toBe(columns.length - 1);
    }
    parquet.finish();
    expect(writer.getBytes()).toEqual(file(groups, 'GZIP', archived));
  });

  it('compresses the hex id columns by entropy coding alone under GZIP: the same values read back, smaller id chunks, every other chunk as it was', async () => {
    const rows = 5_000;
    const g = group(rows);
    // Unique digests, as the archive's ids are: random hex, where string matching finds nothing worth a match.
    const hex = (tag: string, i: number) =>
      createHash('sha256').update(`${tag}${i}`).digest('hex').slice(0, 32);
    g[RECORD_ID] = Array.from({ length: rows }, (_, i) => hex('r', i));
    g[columnIndex('session_id')] = Array.from({ length: rows }, (_, i) => hex('s', i));
    const digests = file([g], 'GZIP', archived);
    const plain = file([g], 'GZIP', ours);
    const sizes = (bytes: Uint8Array) =>
      new Map(
        parquetMetadata(toArrayBuffer(bytes)).row_groups[0]?.columns.map((c) => [
          c.meta_data?.path_in_schema.join('.'),
          Number(c.meta_data?.total_compressed_size),
        ]),
      );
    const [asDigests, asText] = [sizes(digests), sizes(plain)];
    for (const [column, size] of asText) {
      if (column === 'record_id' || column === 'session_id') {
        // Level 1 with matching writes about 0.54 of the hex; entropy coding alone about 0.51.
        expect(asDigests.get(column)).toBeLessThan(size * 0.96);
      } else expect(asDigests.get(column)).toBe(size);
    }
    const read = await parquetReadObjects({
      file: toArrayBuffer(digests),
      columns: ['record_id', 'session_id'],
      compressors: READ_COMPRESSORS,
    });
    expect(read.map((r) => r.record_id)).toEqual(g[RECORD_ID]);
    expect(read.map((r) => r.session_id)).toEqual(g[columnIndex('session_id')]);
  });

  it('leaves a REQUIRED string column holding a null to the library, which refuses it', () => {
    const g = group(10);
    (g[RECORD_ID] as unknown[])[3] = null;
    expect(() => file([g], 'GZIP', ours)).toThrow();
    expect(() => file([g], 'GZIP', library)).toThrow();
  });
});

/** `text` with every character past ASCII replaced by `by`. */
function asciiOnly(text: string, by: string): string {
  return Array.from(text, (c) => (c.charCodeAt(0) < 0x80 && c.length === 1 ? c : by)).join('');
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The rows of each data page of a column, read from the page headers the file holds. */
function dataPageRows(bytes: Uint8Array, column: string): number[] {
  const buffer = toArrayBuffer(bytes);
  const chunk = parquetMetadata(buffer).row_groups[0]?.columns.find(
    (c) => c.meta_data?.path_in_schema[0] === column,
  );
  const meta = chunk?.meta_data;
  if (!meta) throw new Error(`no column ${column}`);
  const reader = { view: new DataView(buffer), offset: Number(meta.data_page_offset) };
  const end = reader.offset + Number(meta.total_compressed_size);
  const rows: number[] = [];
  while (reader.offset < end) {
    const header = parquetHeader(reader);
    rows.push(header.data_page_header_v2?.num_rows ?? 0);
    reader.offset += header.compressed_page_size;
  }
  return rows;
}

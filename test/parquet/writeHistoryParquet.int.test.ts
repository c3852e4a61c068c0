import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type FileMetaData, parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { DEFAULT_PARQUET_COMPRESSION, zstdAvailable } from '../../lib/archive/parquet/parquetCompression.ts';
import { readHistoryRows, readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { syntheticRows } from '../support/syntheticRows.ts';
import { edgeCaseRows } from './historyRows.ts';
import { arrowRsRowCount, readWithArrowRs } from './readWithArrowRs.ts';

/**
 * How DuckDB types each Athena type. Times are TIMESTAMP WITH TIME ZONE because the files declare
 * TIMESTAMP(MILLIS, isAdjustedToUTC=true): instants, not wall-clock readings. That is right for Athena:
 * its Glue `timestamp` column reads these INT64 values as UTC instants with no session-zone shift, the
 * same as the `+00:00` times upstream sends; a non-UTC-adjusted (local) timestamp would be open to
 * reinterpretation in whatever zone a reader assumes.
 */
const DUCKDB_TYPE: Record<string, string> = {
  string: 'VARCHAR',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  int: 'INTEGER',
  'array<string>': 'VARCHAR[]',
};

let dir: string;
let db: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'history-parquet-'));
  db = await DuckDBInstance.create();
  conn = await db.connect();
});

afterAll(async () => {
  conn.closeSync();
  db.closeSync();
  await rm(dir, { recursive: true, force: true });
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS();
}

async function metadataOf(path: string): Promise<FileMetaData> {
  const bytes = await readFile(path);
  return parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

const byId = (a: { record_id?: unknown }, b: { record_id?: unknown }): number =>
  String(a.record_id).localeCompare(String(b.record_id));

describe('writeHistoryParquet', () => {
  const rows = edgeCaseRows();
  let path: string;
  let result: { rows: number; bytes: number };

  beforeAll(async () => {
    path = join(dir, 'edge.parquet');
    result = await writeHistoryParquet(rows, path, { rowGroupSize: 3 });
  });

  it('reports the rows written and the final file size', async () => {
    expect(result.rows).toBe(rows.length);
    expect(result.bytes).toBe((await stat(path)).size);
  });

  it('gives DuckDB every column, in order, with the type matching HISTORY_COLUMNS', async () => {
    const described = await query(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
    expect(described.map((c) => [c.column_name, c.column_type])).toEqual(
      HISTORY_COLUMNS.map((c) => [c.name, DUCKDB_TYPE[c.athenaType]]),
    );
  });

  it('round-trips every value exactly through DuckDB', async () => {
    const read = await query(`SELECT * FROM read_parquet('${path}')`);
    expect(read.sort(byId)).toEqual([...rows].sort(byId));
  });

  it('round-trips every value exactly through hyparquet, in file order', async () => {
    expect(await readHistoryRows(await readFile(path))).toEqual(rows);
  });

  it('round-trips every value exactly through arrow-rs (parquet-wasm), in file order', async () => {
    expect(await readWithArrowRs(await readFile(path))).toEqual(rows);
  });

  it('reads the record_id column alone', async () => {
    expect(await readRecordIds(await readFile(path))).toEqual(rows.map((r) => r.record_id));
  });

  it('splits the rows into row groups of rowGroupSize', async () => {
    const meta = await metadataOf(path);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([3, 3, 3, 1]);
    expect(meta.row_groups[0]?.columns[0]?.meta_data?.codec).toBe(DEFAULT_PARQUET_COMPRESSION);
  });

  it('encodes ints and times as deltas, unique strings by length, and low-cardinality strings by dictionary', async () => {
    const meta = await metadataOf(path);
    const chunk = (name: string) =>
      meta.row_groups[0]?.columns.find((c) => c.meta_data?.path_in_schema[0] === name)?.meta_data;
    for (const name of ['start_time', 'end_time', 'archived_at', 'client_port', 'port']) {
      expect(chunk(name)?.encodings, name).toContain('DELTA_BINARY_PACKED');
      expect(chunk(name)?.statistics, name).toBeDefined();
    }
    for (const name of ['record_id', 'client_ip', 'client_address']) {
      expect(chunk(name)?.encodings, name).toContain('DELTA_LENGTH_BYTE_ARRAY');
      expect(chunk(name)?.statistics, name).toBeUndefined();
    }
    for (const name of ['user_email', 'mode', 'mode_udp']) {
      expect(chunk(name)?.encodings, name).toContain('RLE_DICTIONARY');
    }
    // Time statistics let engines skip row groups: min/max of start_time are the group's real bounds.
    const group = rows.slice(0, 3).map((r) => r.start_time.getTime());
    const stats = chunk('start_time')?.statistics;
    expect(Number(stats?.min_value instanceof Date ? stats.min_value.getTime() : stats?.min_value)).toBe(
      Math.min(...group),
    );
  });

  it('also ends a row group once its rows reach rowGroupBytes, and rejects a bound that is not positive', async () => {
    const bytesPath = join(dir, 'by-bytes.parquet');
    await writeHistoryParquet(rows, bytesPath, { rowGroupSize: 1000, rowGroupBytes: 1 });
    expect((await metadataOf(bytesPath)).row_groups.map((g) => Number(g.num_rows))).toEqual(
      rows.map(() => 1),
    );
    expect(await readWithArrowRs(await readFile(bytesPath))).toEqual(rows);
    await expect(
      writeHistoryParquet(rows, join(dir, 'bad.parquet'), { rowGroupBytes: 0 }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('reads back row groups whose nullable columns are all null, through all three readers', async () => {
    const nullPath = join(dir, 'nulls.parquet');
    const nulls = rows.map((r) => ({
      ...r,
      end_time: null,
      token_value: null,
      virtual_token_value: null,
      token_hmac: null,
      virtual_token_hmac: null,
      client_address: null,
      client_port: null,
      port: null,
      extra_json: null,
    }));
    await writeHistoryParquet(nulls, nullPath, { rowGroupSize: 4 });
    const bytes = await readFile(nullPath);
    expect(await readHistoryRows(bytes)).toEqual(nulls);
    expect(await readWithArrowRs(bytes)).toEqual(nulls);
    expect((await query(`SELECT * FROM read_parquet('${nullPath}')`)).sort(byId)).toEqual(
      [...nulls].sort(byId),
    );
  });

  it('stores domains as a 3-level LIST and times as TIMESTAMP(MILLIS, isAdjustedToUTC)', async () => {
    const schema = await query(
      `SELECT name, repetition_type, converted_type, logical_type FROM parquet_schema('${path}')`,
    );
    const at = schema.findIndex((e) => e.name === 'domains');
    expect(schema.slice(at, at + 3)).toEqual([
      { name: 'domains', repetition_type: 'REQUIRED', converted_type: 'LIST', logical_type: 'ListType()' },
      { name: 'list', repetition_type: 'REPEATED', converted_type: null, logical_type: null },
      { name: 'element', repetition_type: 'REQUIRED', converted_type: 'UTF8', logical_type: 'StringType()' },
    ]);
    const meta = await metadataOf(path);
    for (const name of ['start_time', 'end_time', 'archived_at']) {
      expect(meta.schema.find((e) => e.name === name)).toMatchObject({
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      });
    }
  });

  it('writes a valid, typed, empty file when there are no rows', async () => {
    const empty = join(dir, 'empty.parquet');
    expect(await writeHistoryParquet([], empty)).toMatchObject({ rows: 0 });
    expect(await query(`SELECT count(*)::INTEGER AS n FROM read_parquet('${empty}')`)).toEqual([{ n: 0 }]);
    // Not read by arrow-rs: parquet-wasm 0.8 rejects a file with no row group whose LIST has a REQUIRED
    // element ("Expected list element type of Struct but got Byte"), although it reads the same schema
    // once one row group exists. The engine never publishes an empty data file.
    const described = await query(`DESCRIBE SELECT * FROM read_parquet('${empty}')`);
    expect(described.map((c) => c.column_type)).toEqual(
      HISTORY_COLUMNS.map((c) => DUCKDB_TYPE[c.athenaType]),
    );
  });

  it('accepts an async iterable', async () => {
    const asyncPath = join(dir, 'async.parquet');
    async function* source(): AsyncGenerator<ArchiveRow> {
      yield* rows;
    }
    await writeHistoryParquet(source(), asyncPath, { rowGroupSize: 4 });
    expect(await readRecordIds(await readFile(asyncPath))).toEqual(rows.map((r) => r.record_id));
    expect(await readWithArrowRs(await readFile(asyncPath))).toEqual(rows);
  });

  it('passes a source error through unchanged and removes the partial file', async () => {
    const failing = join(dir, 'failing.parquet');
    const boom = new ArchiverError('UPSTREAM_UNAVAILABLE', 'upstream went away');
    function* source(): Generator<ArchiveRow> {
      yield* rows;
      throw boom;
    }
    await expect(writeHistoryParquet(source(), failing, { rowGroupSize: 2 })).rejects.toBe(boom);
    await expect(stat(failing)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects rowGroupSize %s with CONFIG_INVALID', async (rowGroupSize) => {
    await expect(writeHistoryParquet(rows, join(dir, 'bad.parquet'), { rowGroupSize })).rejects.toMatchObject(
      {
        code: 'CONFIG_INVALID',
      },
    );
  });

  it('writes ZSTD where node:zlib has zstd, and otherwise refuses with CONFIG_INVALID', async () => {
    const zstdPath = join(dir, 'zstd.parquet');
    const written = writeHistoryParquet(rows, zstdPath, { compression: 'ZSTD' });
    if (zstdAvailable()) {
      await written;
      expect((await metadataOf(zstdPath)).row_groups[0]?.columns[0]?.meta_data?.codec).toBe('ZSTD');
      expect(await readHistoryRows(await readFile(zstdPath))).toEqual(rows);
      expect((await query(`SELECT * FROM read_parquet('${zstdPath}')`)).sort(byId)).toEqual(
        [...rows].sort(byId),
      );
      expect(await readWithArrowRs(await readFile(zstdPath))).toEqual(rows);
    } else {
      await expect(written).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    }
  });

  it('streams 300k rows as six 50k row groups, each written while later rows are still being pulled', async () => {
    const big = join(dir, 'big.parquet');
    const sizeAtGroupStart: number[] = [];
    function* source(): Generator<ArchiveRow> {
      let i = 0;
      for (const row of syntheticRows(300_000)) {
        if (i % 50_000 === 0) sizeAtGroupStart.push(statSync(big).size);
        i++;
        yield row;
      }
    }
    const written = await writeHistoryParquet(source(), big, {
      rowGroupSize: 50_000,
      rowGroupBytes: Number.POSITIVE_INFINITY,
    });
    expect(written.rows).toBe(300_000);
    const meta = await metadataOf(big);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual(Array(6).fill(50_000));
    // Each group's bytes reached the file before the first row of the group after next was pulled: the
    // encoder (a worker thread here) runs at most a few chunks behind the source, never a whole file.
    expect(sizeAtGroupStart[2]).toBeGreaterThan(0);
    for (let g = 2; g < sizeAtGroupStart.length; g++) {
      expect(sizeAtGroupStart[g]).toBeGreaterThan(sizeAtGroupStart[g - 1] ?? 0);
    }
    // Low-cardinality columns are dictionary-encoded by the library.
    const email = meta.row_groups[0]?.columns.find((c) => c.meta_data?.path_in_schema[0] === 'user_email');
    expect(email?.meta_data?.encodings).toContain('RLE_DICTIONARY');
    const counts = await query(
      `SELECT count(*)::INTEGER AS n, count(DISTINCT record_id)::INTEGER AS ids FROM read_parquet('${big}')`,
    );
    expect(counts).toEqual([{ n: 300_000, ids: 300_000 }]);
    expect(arrowRsRowCount(await readFile(big))).toBe(300_000);
  });
});

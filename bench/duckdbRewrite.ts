import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type ColumnSizes, columnSizesOf, parquetFiles } from './columnSizes.ts';

/** The archive's files against DuckDB's rewrite of each (same rows, same order, same codec). */
export interface DuckdbRewrite {
  codec: string;
  rows: number;
  archiveBytes: number;
  duckdbBytes: number;
  /** archive ÷ DuckDB over all files, and the worst single file. */
  ratio: number;
  worstFile: { path: string; archiveBytes: number; duckdbBytes: number; ratio: number };
  archiveColumns: ColumnSizes;
  duckdbColumns: ColumnSizes;
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * Writer quality: DuckDB reads each history file of the archive under `root` and writes the
 * same rows back with `COPY ... (FORMAT parquet, COMPRESSION <codec>)`, its defaults otherwise; bytes
 * are compared file for file, and column by column from both files' footers.
 */
export async function duckdbRewrite(root: string, codec: string): Promise<DuckdbRewrite> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const out = await mkdtemp(join(tmpdir(), 'ta-bench-duck-'));
  try {
    const files = await parquetFiles(join(root, 'history'));
    const rewritten: string[] = [];
    let rows = 0;
    let archiveBytes = 0;
    let duckdbBytes = 0;
    let worstFile: DuckdbRewrite['worstFile'] = { path: '', archiveBytes: 0, duckdbBytes: 0, ratio: 0 };
    for (const [i, path] of files.entries()) {
      const target = join(out, `${i}.parquet`);
      const copied = await conn.runAndReadAll(
        `COPY (SELECT * FROM read_parquet('${path}')) TO '${target}' (FORMAT parquet, COMPRESSION ${codec})`,
      );
      rows += Number(copied.getRowsJS()[0]?.[0] ?? 0);
      rewritten.push(target);
      const a = (await stat(path)).size;
      const d = (await stat(target)).size;
      archiveBytes += a;
      duckdbBytes += d;
      if (a / d > worstFile.ratio) {
        worstFile = { path: relative(root, path), archiveBytes: a, duckdbBytes: d, ratio: round(a / d) };
      }
    }
    return {
      codec,
      rows,
      archiveBytes,
      duckdbBytes,
      ratio: round(archiveBytes / duckdbBytes),
      worstFile,
      archiveColumns: await columnSizesOf(files),
      duckdbColumns: await columnSizesOf(rewritten),
    };
  } finally {
    conn.closeSync();
    db.closeSync();
    await rm(out, { recursive: true, force: true });
  }
}

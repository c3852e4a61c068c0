import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryParquetFile } from '../../lib/archive/parquet/historyParquetFile.ts';
import { parquetWorker } from '../../lib/archive/parquet/parquetWorkerClient.ts';
import { readHistoryFileRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { CHUNK_ROWS } from '../../lib/archive/parquet/rowChunk.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { syntheticRows } from '../support/syntheticRows.ts';
import { edgeCaseRows } from './historyRows.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-parquet-worker-'));
});
afterAll(async () => {
  await parquetWorker()?.terminate();
  await rm(dir, { recursive: true, force: true });
});

/** Edge-case rows repeated past several chunks, with distinct ids, so the worker takes over the file. */
function manyRows(n: number): ArchiveRow[] {
  const edge = edgeCaseRows();
  const synthetic = [...syntheticRows(n)];
  return synthetic.map((row, i) =>
    i % 7 === 0 ? { ...(edge[i % edge.length] as ArchiveRow), record_id: row.record_id } : row,
  );
}

async function rowsOf(path: string): Promise<ArchiveRow[]> {
  const out: ArchiveRow[] = [];
  for await (const row of readHistoryFileRows(path)) out.push(row);
  return out;
}

describe('HistoryParquetFile with the worker encoder', () => {
  it('has a worker on this machine (2+ CPUs, TypeScript sources), so the tests below exercise it', () => {
    expect(parquetWorker()?.alive).toBe(true);
  });

  it.each([
    ['one chunk short', CHUNK_ROWS - 1, 100_000],
    ['many chunks, row groups cut inside chunks', CHUNK_ROWS * 5 + 17, 1_500],
  ])('writes the same bytes as the inline encoder (%s)', async (_name, n, rowGroupSize) => {
    const rows = manyRows(n);
    const inline = join(dir, `inline-${n}.parquet`);
    const worker = join(dir, `worker-${n}.parquet`);
    const a = await writeHistoryParquet(rows, inline, { rowGroupSize, encoder: 'inline' });
    const b = await writeHistoryParquet(rows, worker, { rowGroupSize, encoder: 'worker' });
    expect(b).toEqual(a);
    expect(a.rows).toBe(n);
    expect(Buffer.compare(await readFile(worker), await readFile(inline))).toBe(0);
    const back = await rowsOf(worker);
    expect(back.map((r) => r.record_id)).toEqual(rows.map((r) => r.record_id));
    expect(back[7]).toEqual(rows[7]);
  });

  it('fails the file with STORE_FAILED and removes it when the worker dies mid-file; the next file gets a new worker', async () => {
    const path = join(dir, 'killed.parquet');
    const file = await HistoryParquetFile.create(path, { encoder: 'worker', rowGroupSize: 1_000 });
    const rows = manyRows(CHUNK_ROWS * 3);
    for (const row of rows.slice(0, CHUNK_ROWS * 2)) await file.add(row);
    const first = parquetWorker();
    await first?.terminate();
    for (const row of rows.slice(CHUNK_ROWS * 2)) await file.add(row)?.catch(() => undefined);
    await expect(file.finish()).rejects.toMatchObject({ code: 'STORE_FAILED' });
    expect(existsSync(path)).toBe(false);
    expect(first?.alive).toBe(false);

    const again = join(dir, 'after-death.parquet');
    const written = await writeHistoryParquet(rows, again, { encoder: 'worker', rowGroupSize: 1_000 });
    expect(written.rows).toBe(rows.length);
    expect(parquetWorker()).not.toBe(first);
    expect((await rowsOf(again)).length).toBe(rows.length);
  });

  it('reports a write that fails inside the worker as STORE_FAILED and leaves no file', async () => {
    const sub = join(dir, 'gone');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(sub);
    const path = join(sub, 'x.parquet');
    const file = await HistoryParquetFile.create(path, { encoder: 'worker' });
    // The folder disappears before the worker opens the file (it does so on the first full chunk).
    await rm(sub, { recursive: true, force: true });
    const rows = manyRows(CHUNK_ROWS * 2);
    const adding = (async () => {
      for (const row of rows) await file.add(row);
    })();
    await expect(adding.then(() => file.finish())).rejects.toMatchObject({ code: 'STORE_FAILED' });
    await file.abort();
    expect(existsSync(path)).toBe(false);
  });

  it('aborts a file the worker holds: the partial file is removed', async () => {
    const path = join(dir, 'aborted.parquet');
    const file = await HistoryParquetFile.create(path, { encoder: 'worker', rowGroupSize: 500 });
    for (const row of manyRows(CHUNK_ROWS * 3)) await file.add(row);
    await file.abort();
    expect(existsSync(path)).toBe(false);
  });

  it.each(['worker', 'inline'] as const)(
    '%s: two producers adding to one file at once (as two pages of a walk do) write every row exactly once',
    async (encoder) => {
      const path = join(dir, `two-producers-${encoder}.parquet`);
      const file = await HistoryParquetFile.create(path, { encoder, rowGroupSize: 700 });
      const rows = manyRows(CHUNK_ROWS * 6 + 5);
      const produce = async (mine: ArchiveRow[]) => {
        for (const [i, row] of mine.entries()) {
          const wait = file.add(row);
          if (wait) await wait;
          // Yield now and then, as a page's absorb does between rows of different pages.
          if (i % 333 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
      };
      await Promise.all([
        produce(rows.filter((_, i) => i % 2 === 0)),
        produce(rows.filter((_, i) => i % 2 === 1)),
      ]);
      const written = await file.finish();
      expect(written.rows).toBe(rows.length);
      const back = (await rowsOf(path)).map((r) => r.record_id).sort();
      expect(back).toEqual(rows.map((r) => r.record_id).sort());
    },
  );
});

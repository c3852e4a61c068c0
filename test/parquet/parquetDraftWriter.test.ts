import { createHook } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ByteWriter } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { historyColumnData } from '../../lib/archive/parquet/historyColumnData.ts';
import {
  type DraftWriterSettings,
  ParquetDraftWriter,
} from '../../lib/archive/parquet/parquetDraftWriter.ts';
import { RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { writeHistoryRowGroup } from '../../lib/archive/parquet/writeHistoryRowGroup.ts';
import type { DraftRow } from '../../lib/archive/records/archiveRow.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { edgeCaseRows, historyParquetWriter } from './historyRows.ts';

const tmp = tempDirPer('ta-draft-writer-');

/** 2,600 rows: the edge cases again and again, each with an id of its own and its `session_id` left to the encoder. */
function draftRows(): DraftRow[] {
  const base = edgeCaseRows();
  return Array.from({ length: 2600 }, (_, i) => {
    const row = base[i % base.length] as DraftRow;
    const keepsHmacs = row.token_hmac !== null || row.virtual_token_hmac !== null;
    return {
      ...row,
      record_id: i.toString(16).padStart(32, '0'),
      session_id: keepsHmacs ? null : row.session_id,
    };
  });
}

/** The file `rows` make when handed to the writer in chunks of `chunkRows`. */
async function fileOf(
  rows: readonly DraftRow[],
  chunkRows: number,
  settings: DraftWriterSettings,
): Promise<Buffer> {
  const path = join(
    tmp.dir,
    `chunks-${chunkRows}-${settings.rowGroupSize}-${settings.rowGroupBytes}.parquet`,
  );
  const writer = await ParquetDraftWriter.create(path, settings);
  const builder = new RowChunkBuilder(chunkRows);
  for (const row of rows) {
    builder.push(row);
    if (builder.rows >= chunkRows) await writer.append(builder.take());
  }
  if (builder.rows > 0) await writer.append(builder.take());
  await writer.finish();
  return readFile(path);
}

/**
 * The file of `rows` in row groups of `groupRows`, each written from its columns as arrays by
 * `writeHistoryRowGroup`, never packed: what the draft writer's file must be.
 */
function fromArrays(rows: readonly DraftRow[], groupRows: number): Uint8Array {
  const writer = new ByteWriter();
  const parquet = historyParquetWriter(writer, 'GZIP', 'tunnel-archiver (hyparquet-writer 0.17.0)');
  for (let at = 0; at < rows.length; at += groupRows) {
    const builder = new RowChunkBuilder();
    for (const row of rows.slice(at, at + groupRows)) builder.push(row);
    const { columns, rows: n } = builder.take();
    void writeHistoryRowGroup(parquet, historyColumnData(columns), n);
  }
  parquet.finish();
  return writer.getBytes();
}

describe('ParquetDraftWriter', () => {
  it('writes the file its rows make as arrays, though it holds each chunk packed: chunks of ASCII rows packed beside chunks past ASCII left as strings in one group', async () => {
    // Every `session_id` given, so the file from arrays has the ids the draft writer would derive.
    const rows = draftRows().map((row, i) => ({ ...row, session_id: row.session_id ?? `s${i}` }));
    const expected = Buffer.from(fromArrays(rows, 700));
    for (const chunkRows of [1, 7, 333]) {
      const settings = { rowGroupSize: 700, rowGroupBytes: 64 * 1024 * 1024, compression: 'GZIP' } as const;
      expect((await fileOf(rows, chunkRows, settings)).equals(expected), `${chunkRows} rows a chunk`).toBe(
        true,
      );
    }
  });

  it('encodes a row group in one stretch when told not to yield (as the encoding worker does), to the same bytes: the next turn of the event loop comes after the group is handed to the file, not after its first column', async () => {
    const rows = draftRows().slice(0, 700);
    const settings = { rowGroupSize: 700, rowGroupBytes: 64 * 1024 * 1024, compression: 'GZIP' } as const;
    const fileWrites = () => {
      let issued = 0;
      // A file write is a request to the thread pool, made the moment it is issued.
      const hook = createHook({
        init(_id, type) {
          if (type === 'FSREQPROMISE') issued++;
        },
      });
      return { hook, issued: () => issued };
    };
    const files: Buffer[] = [];
    for (const yieldBetweenColumns of [true, false]) {
      const path = join(tmp.dir, `stretch-${yieldBetweenColumns}.parquet`);
      const writer = await ParquetDraftWriter.create(path, settings, { yieldBetweenColumns });
      const builder = new RowChunkBuilder(rows.length);
      for (const row of rows) builder.push(row);
      const writes = fileWrites();
      writes.hook.enable();
      const flushed = writer.append(builder.take());
      const atNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(writes.issued())));
      await flushed;
      writes.hook.disable();
      expect(atNextTurn, `yieldBetweenColumns: ${yieldBetweenColumns}`).toBe(yieldBetweenColumns ? 0 : 1);
      await writer.finish();
      files.push(await readFile(path));
    }
    expect((files[1] as Buffer).equals(files[0] as Buffer)).toBe(true);
  });

  it('writes the same bytes however the rows are chunked: one row a chunk (over a thousand ranges a group), cut mid-chunk, or one chunk', async () => {
    const rows = draftRows();
    for (const settings of [
      { rowGroupSize: 100_000, rowGroupBytes: 64 * 1024 * 1024, compression: 'GZIP' },
      { rowGroupSize: 700, rowGroupBytes: 64 * 1024 * 1024, compression: 'GZIP' },
      { rowGroupSize: 100_000, rowGroupBytes: 100_000, compression: 'GZIP' },
    ] as const) {
      const whole = await fileOf(rows, 4096, settings);
      for (const chunkRows of [1, 333, 1024]) {
        expect((await fileOf(rows, chunkRows, settings)).equals(whole), `${chunkRows} rows a chunk`).toBe(
          true,
        );
      }
    }
  });
});

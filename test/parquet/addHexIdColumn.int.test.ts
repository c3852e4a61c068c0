import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyWriter } from '../../lib/archive/parquet/historyWriter.ts';
import { addHexIdColumn, readStringColumn } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { localFileSource } from '../../lib/archive/store/byteSource.ts';
import { IdSet } from '../../lib/foundation/ids/idSet.ts';
import { syntheticRows } from '../support/syntheticRows.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-hexids-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('addHexIdColumn', () => {
  it('adds the same ids as the strings of the column, over several row groups, from a ranged source', async () => {
    // Record ids as the archive holds them: 32 hex characters.
    const rows = [...syntheticRows(2_500)].map((r) => ({ ...r, record_id: r.record_id.slice(0, 32) }));
    const path = join(dir, 'ids.parquet');
    await writeHistoryParquet(
      (async function* () {
        yield* rows;
      })(),
      path,
      { rowGroupSize: 1_000 },
    );
    const fast = new IdSet();
    await addHexIdColumn(await localFileSource(path), 'record_id', fast);
    const strings: string[] = [];
    for await (const id of readStringColumn(await readFile(path), 'record_id')) strings.push(id);
    expect(strings).toHaveLength(2_500);
    expect(fast.size).toBe(new Set(strings).size);
    for (const id of strings) expect(fast.has(id)).toBe(true);
    // The committer's way to the history ids is this one.
    const viaWriter = new IdSet();
    await historyWriter(1_000).addIds?.(await localFileSource(path), viaWriter);
    expect(viaWriter.size).toBe(fast.size);
  });

  it('fails on a value that is not an id', async () => {
    const writer = new ByteWriter();
    const pq = new ParquetWriter({
      writer,
      schema: [
        { name: 'root', num_children: 1 },
        { name: 'record_id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      ],
    });
    pq.write({ columnData: [{ name: 'record_id', data: ['ab'.repeat(16), 'not an id'] }] });
    pq.finish();
    await expect(
      addHexIdColumn(new Uint8Array(writer.getBuffer()), 'record_id', new IdSet()),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});

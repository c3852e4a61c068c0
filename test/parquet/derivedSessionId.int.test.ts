import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedSessionId } from '../../lib/archive/parquet/derivedSessionId.ts';
import { HISTORY_COLUMN_NAMES } from '../../lib/archive/parquet/historySchema.ts';
import { parquetWorker } from '../../lib/archive/parquet/parquetWorkerClient.ts';
import { readHistoryFileRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { CHUNK_ROWS, RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { TOKEN_POLICIES, type TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { KeyedRecord } from '../../lib/archive/records/keyedRecord.ts';
import { type RecordParts, recordFrom, recordPartsArb, TEST_TOKEN_KEY } from '../records/historyRecords.ts';

const archivedAt = new Date('2026-11-30T12:00:00.000Z');
const keyed = (parts: RecordParts, tokenPolicy: TokenPolicy) =>
  new KeyedRecord(recordFrom(parts), { tokenPolicy, tokenKey: TEST_TOKEN_KEY, archivedAt });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-derived-session-'));
});
afterAll(async () => {
  await parquetWorker()?.terminate();
  await rm(dir, { recursive: true, force: true });
});

describe("a row's session_id left to the encoder", () => {
  it('is left null only when the row keeps its token HMACs, and the chunk then derives the id the record has', () => {
    fc.assert(
      fc.property(recordPartsArb, fc.constantFrom(...TOKEN_POLICIES), (parts, policy) => {
        const record = keyed(parts, policy);
        const full = record.row();
        const draft = record.draftRow();
        expect(draft.session_id).toBe(policy === 'drop' ? full.session_id : null);
        // Its timestamps go to the chunk as the epoch ms they are, with no Date made and read back.
        expect(draft.start_time).toBe(full.start_time.getTime());
        expect(draft.archived_at).toBe(archivedAt.getTime());
        const builder = new RowChunkBuilder();
        const fullBuilder = new RowChunkBuilder();
        // Row groups end where they would with the id written out: the payload counts it.
        expect(builder.push(draft)).toBe(fullBuilder.push(full));
        const chunk = builder.take();
        // The chunk holds what the full row gives (its timestamps as epoch ms), the session_id apart.
        const sessionColumn = HISTORY_COLUMN_NAMES.indexOf('session_id');
        const fullChunk = fullBuilder.take();
        fullChunk.columns[sessionColumn] = [draft.session_id];
        expect(chunk).toEqual(fullChunk);
        if (draft.session_id === null) expect(derivedSessionId(chunk.columns, 0)).toBe(full.session_id);
      }),
      { numRuns: 300 },
    );
  });

  it.each(['inline', 'worker'] as const)(
    'is written by the %s encoder byte for byte as the full rows are, under every token policy',
    async (encoder) => {
      const rows = fc.sample(recordPartsArb, { numRuns: CHUNK_ROWS * 3 + 11, seed: 7 });
      const records = rows.map((parts, i) => keyed(parts, TOKEN_POLICIES[i % 3] as TokenPolicy));
      const fullPath = join(dir, `full-${encoder}.parquet`);
      const draftPath = join(dir, `draft-${encoder}.parquet`);
      await writeHistoryParquet(
        records.map((r) => r.row()),
        fullPath,
        { rowGroupSize: 500, encoder: 'inline' },
      );
      const drafts = records.map((r) => r.draftRow());
      expect(drafts.filter((d) => d.session_id === null).length).toBeGreaterThan(CHUNK_ROWS);
      await writeHistoryParquet(drafts, draftPath, { rowGroupSize: 500, encoder });
      expect(Buffer.compare(await readFile(draftPath), await readFile(fullPath))).toBe(0);
      const back: string[] = [];
      for await (const row of readHistoryFileRows(draftPath)) back.push(row.session_id);
      expect(back).toEqual(records.map((r) => r.row().session_id));
    },
  );
});

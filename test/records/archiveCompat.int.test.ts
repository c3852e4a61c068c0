import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { HistoryRecord } from '../../lib/archive/records/schemas.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import {
  baseRecord,
  documentedRecord,
  recordFrom,
  recordPartsArb,
  TEST_TOKEN_KEY,
} from './historyRecords.ts';

/*
 * Archives written before #22 (ids from canonical-JSON strings, rows mapped by the old toArchiveRow)
 * must stay byte for byte what the current code writes. The two digests below were computed by the
 * code before that change (the ids from `JSON.stringify` of their fields as an object, the rows
 * from `toArchiveRow` with `Object.entries` for extras) from exactly this dataset: the first over
 * every row's two ids, the second over the Parquet file (SNAPPY: the writer's own JavaScript codec,
 * so the bytes do not depend on the Node running the test).
 */
const IDS_SHA256 = 'f88170d2c1240b1dd42d1d37ef43765dbd8626814bbf6b46dff2282fd64beea1';
const FILE_SHA256 = '36d4477e6c8f6adb12b7ab7402de886acc040ebb6e2bba282a312ffce2fe0efa';

const archivedAt = new Date('2026-01-02T03:04:05.678Z');

/** A fixed dataset: the documented record, awkward ones (extras, non-ASCII, escapes), 3,000 arbitrary ones. */
function fixedRecords(): HistoryRecord[] {
  const arbitrary = fc.sample(recordPartsArb, { seed: 22, numRuns: 3_000 }).map((p) => recordFrom(p));
  return [
    documentedRecord(),
    baseRecord({ region: 'eu', note: 'naïve ☃ "quoted" \\ back', token_value: 'tok' }),
    baseRecord({ user_email: 'jürgen.ßtraße@exämple.com', domains: ['b', 'a', 'b', '😀', 'e\u0301'] }),
    baseRecord({ client_ip: '"\\\u0000\u2028\ud800', end_time: null, port: null, domains: [] }),
    ...arbitrary,
  ];
}

describe('archives stay byte-for-byte compatible', () => {
  it('gives the same ids and the same Parquet file as the code before the fixed-layout ids', async () => {
    const rows = fixedRecords().map((r, i) =>
      toArchiveRow(r, { tokenPolicy: i % 3 === 0 ? 'keep' : 'hash', tokenKey: TEST_TOKEN_KEY, archivedAt }),
    );
    const ids = createHash('sha256');
    for (const row of rows) ids.update(`${row.record_id} ${row.session_id}\n`);
    const dir = await mkdtemp(join(tmpdir(), 'archive-compat-'));
    let file: string;
    try {
      const path = join(dir, 'fixed.parquet');
      await writeHistoryParquet(rows, path, { compression: 'SNAPPY' });
      file = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect({ ids: ids.digest('hex'), file }).toEqual({ ids: IDS_SHA256, file: FILE_SHA256 });
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { copyWithArchiveIds } from '../../bench/copyWithArchiveIds.ts';
import { recordIdentity } from '../../lib/archive/records/recordId.ts';
import { validateHistoryRecord } from '../../lib/archive/records/validateHistoryRecord.ts';
import { CONTRACT_SPELLINGS } from '../support/contractSpellings.ts';
import { TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const now = new Date('2026-11-20T06:00:00Z');

/** A record of the seed's shape; `over` changes some of its fields. */
const record = (over: Record<string, unknown>): Record<string, unknown> => ({
  start_time: '2026-11-17T10:00:00.123+00:00',
  end_time: '2026-11-17T11:00:00.456+00:00',
  user_email: 'plain@example.com',
  token_value: 'TOKEN-A',
  virtual_token_value: null,
  domains: ['tunnel.a.pinggy.link'],
  mode: 'http',
  mode_udp: '',
  client_ip: '[5.7.152.215]:48696',
  port: null,
  ...over,
});

/**
 * Every spelling the contract allows (`CONTRACT_SPELLINGS`: offsets, `Z`, digits past milliseconds, no
 * seconds, a null end, domains none, unsorted and repeated, non-ASCII, empty and null tokens, the port's
 * edges, fields the seed does not name), and texts the ids escape: quotes, backslashes, slashes and
 * control characters; domains that differ by case; the widest offsets.
 */
const SENT: Record<string, unknown>[] = [
  ...CONTRACT_SPELLINGS,
  record({ user_email: 'quote"back\\slash/solidus@example.com', mode_udp: 'tab\there\nnew\u0001ctl\u001f' }),
  record({ client_ip: '[10.0.0.1]:0', domains: ['b.example', 'B.example', 'a.example'], port: 1 }),
  record({ start_time: '2026-11-17T00:00:00-13:45', end_time: '2026-11-18T23:00:00+14:00' }),
];

const tmp = tempDirPer('ta-copy-ids-');

describe('the bench script with the archive ids (copyWithArchiveIds)', () => {
  it('gives every record the record_id and session_id the archiver gives it', async () => {
    const records = SENT.map((raw) => {
      const v = validateHistoryRecord(raw, now);
      if (!v.ok) throw new Error(v.reason);
      return v.record;
    });
    await writeFile(join(tmp.dir, 'page-0.json'), JSON.stringify({ content: SENT.slice(0, 4) }));
    await writeFile(join(tmp.dir, 'page-1.json'), JSON.stringify({ content: SENT.slice(4) }));
    const out = join(tmp.dir, 'out.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      await copyWithArchiveIds(conn, join(tmp.dir, 'page-*.json'), out, TEST_TOKEN_KEY);
      const rows = (
        await conn.runAndReadAll(
          `SELECT record_id, session_id FROM read_parquet('${out}') ORDER BY record_id`,
        )
      ).getRowObjectsJson();
      const expected = records
        .map((r) => recordIdentity(r, TEST_TOKEN_KEY))
        .map(({ record_id, session_id }) => ({ record_id, session_id }))
        .sort((a, b) => (a.record_id < b.record_id ? -1 : 1));
      expect(rows).toEqual(expected);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScriptIds, scriptPageFile } from '../../bench/checkScriptIds.ts';
import { copyWithArchiveIds } from '../../bench/copyWithArchiveIds.ts';
import { sqlString } from '../../lib/analytics/query/sqlString.ts';
import { CONTRACT_SPELLINGS } from '../support/contractSpellings.ts';
import { TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const now = new Date('2026-11-20T06:00:00Z');
const tmp = tempDirPer('ta-check-ids-');
let db: DuckDBInstance;
let conn: DuckDBConnection;
let out: string;
let distinct: number;

/** The bench child's check of the script's ids: what makes a bench run with a wrong id fail. */
describe('checkScriptIds', () => {
  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
    // Pages as the script saves them: two bodies, numbered in the order they came.
    await writeFile(scriptPageFile(tmp.dir, 0), JSON.stringify({ content: CONTRACT_SPELLINGS.slice(0, 3) }));
    await writeFile(scriptPageFile(tmp.dir, 1), JSON.stringify({ content: CONTRACT_SPELLINGS.slice(3) }));
    out = join(tmp.dir, 'out.parquet');
    await copyWithArchiveIds(conn, join(tmp.dir, 'page-*.json'), out, TEST_TOKEN_KEY);
    const rows = await conn.runAndReadAll(
      `SELECT count(DISTINCT record_id) FROM read_parquet(${sqlString(out)})`,
    );
    distinct = Number(rows.getRows()[0]?.[0]);
  });
  afterAll(() => {
    conn?.closeSync();
    db?.closeSync();
  });

  it("passes on the archive's ids, over every saved page, and counts the records it checked", async () => {
    expect(distinct).toBeGreaterThan(3);
    expect(await checkScriptIds(conn, tmp.dir, out, TEST_TOKEN_KEY, { sample: 10_000, now })).toBe(distinct);
    // A sample stops at its size, within the first page.
    expect(await checkScriptIds(conn, tmp.dir, out, TEST_TOKEN_KEY, { sample: 2, now })).toBe(2);
  });

  it('fails when the ids are made under another key', async () => {
    const other = TEST_TOKEN_KEY.map((b) => b ^ 0xff);
    // The key reaches the ids through the token HMACs: only the record with no token keeps its ids.
    await expect(checkScriptIds(conn, tmp.dir, out, other, { sample: 10_000, now })).rejects.toThrow(
      `the script's ids differ from the archiver's: 1 of ${distinct} found`,
    );
  });

  it('fails when one row has the right record_id but another session_id', async () => {
    const bad = join(tmp.dir, 'one-bad.parquet');
    await conn.run(
      `COPY (SELECT record_id, CASE WHEN record_id = (SELECT min(record_id) FROM read_parquet(${sqlString(out)}))
         THEN repeat('0', 32) ELSE session_id END AS session_id FROM read_parquet(${sqlString(out)}))
       TO ${sqlString(bad)} (FORMAT parquet)`,
    );
    await expect(checkScriptIds(conn, tmp.dir, bad, TEST_TOKEN_KEY, { sample: 10_000, now })).rejects.toThrow(
      `${distinct - 1} of ${distinct} found`,
    );
  });

  it('fails when there is nothing to check: no saved page, or no valid record in them', async () => {
    const empty = join(tmp.dir, 'empty');
    await mkdir(empty);
    await expect(checkScriptIds(conn, empty, out, TEST_TOKEN_KEY, { sample: 10, now })).rejects.toThrow(
      'no saved record to check the script ids against',
    );
    const invalid = join(tmp.dir, 'invalid');
    await mkdir(invalid);
    await writeFile(scriptPageFile(invalid, 0), JSON.stringify({ content: [{ start_time: 'not a time' }] }));
    await expect(checkScriptIds(conn, invalid, out, TEST_TOKEN_KEY, { sample: 10, now })).rejects.toThrow(
      'no saved record',
    );
  });
});

import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { startDynalite } from '../../devkit/startDynalite.ts';
import { HISTORY_RECORD_FIELDS } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { CONTRACT_SPELLINGS } from '../support/contractSpellings.ts';
import { TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { serverPer } from '../support/serverPer.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { readDocSql } from './docSql.ts';

const clock = new ManualClock('2026-11-20T06:00:00Z');
const day = addDays(toDay(clock.now()), -3); // 2026-11-17

const SENT = [...CONTRACT_SPELLINGS];

const dynamo = serverPer(startDynalite);
const tmp = tempDirPer('ta-fidelity-');

describe('the archive returns what the API sent', () => {
  it('round trip: every documented field of every record, read back with DuckDB, equals the text sent', async () => {
    const objects = createFileObjectStore(join(tmp.dir, 'archive'));
    await ensureStateTable(dynamo.client, 'fidelity');
    const summary = await runArchive(
      {
        api: new ScriptedUpstream({ clock, days: new Map([[day, SENT]]) }),
        objects,
        state: createDynamoStateStore({ client: dynamo.client, table: 'fidelity' }),
        clock,
        logger: silentLogger,
        tokenKey: TEST_TOKEN_KEY,
        signer: TEST_SIGNER,
      },
      { ...TEST_OPTIONS, tokenPolicy: 'keep', onlyDays: [day] },
    );
    expect(summary.failedDays).toEqual([]);

    const db = await (await DuckDBInstance.create(':memory:')).connect();
    // The documented query that gives the sent values back (docs/data-contract.md), over this archive.
    const sql = readDocSql('sent values').replace(
      'tunnel_sessions',
      `read_parquet('${join(tmp.dir, 'archive')}/history/*/*.parquet', union_by_name = true)`,
    );
    const rows = (await db.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
    expect(rows).toHaveLength(SENT.length);
    const byStart = new Map(rows.map((r) => [r.start_time, r]));
    for (const sent of SENT) {
      const back = byStart.get(sent.start_time);
      expect(back, String(sent.start_time)).toBeDefined();
      for (const field of HISTORY_RECORD_FIELDS)
        expect(back?.[field], `${sent.start_time} ${field}`).toEqual(sent[field]);
      const extra = Object.fromEntries(
        Object.entries(sent).filter(([k]) => !(HISTORY_RECORD_FIELDS as string[]).includes(k)),
      );
      expect(
        back?.extra_json === null ? {} : JSON.parse(String(back?.extra_json)),
        String(sent.start_time),
      ).toEqual(extra);
    }
    // The documented spelling keeps no text: nothing was lost, so nothing is stored twice.
    const plain = (
      await db.runAndReadAll(
        `SELECT start_time_text, end_time_text FROM read_parquet('${join(tmp.dir, 'archive')}/history/*/*.parquet', union_by_name = true) WHERE user_email = 'plain@example.com'`,
      )
    ).getRowsJson();
    expect(plain).toEqual([[null, null]]);
  });
});

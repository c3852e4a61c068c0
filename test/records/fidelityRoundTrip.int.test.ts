import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock/clock.ts';
import { addDays, toDay } from '../../lib/clock/day.ts';
import { runArchive } from '../../lib/engine/runArchive.ts';
import { silentLogger } from '../../lib/log/logger.ts';
import { HISTORY_RECORD_FIELDS } from '../../lib/records/schemas.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../../lib/store/fileObjectStore.ts';
import { TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from '../support/engineKit.ts';
import { ScriptedUpstream } from '../support/scriptedUpstream.ts';
import { serverPer } from '../support/serverPer.ts';
import { startDynalite } from '../support/startDynalite.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { readDocSql } from './docSql.ts';

const clock = new ManualClock('2026-11-20T06:00:00Z');
const day = addDays(toDay(clock.now()), -3); // 2026-11-17

/**
 * Every documented field, spelled as adversarially as the contract allows: offsets other than UTC, `Z`,
 * digits past milliseconds, no seconds, domains out of order and repeated, non-ASCII, upper case, IPv6,
 * the port's edges, a null end, and fields the contract does not name.
 */
const SENT: Record<string, unknown>[] = [
  {
    start_time: '2026-11-17T10:00:00.123+00:00',
    end_time: '2026-11-17T11:00:00.456+00:00',
    user_email: 'plain@example.com',
    token_value: 'TOKEN-A',
    virtual_token_value: null,
    domains: ['tunnel.a.pinggy.link', 'custom.example.com'],
    mode: 'http',
    mode_udp: '',
    client_ip: '[5.7.152.215]:48696',
    port: null,
  },
  {
    start_time: '2026-11-17T15:30:00.123456+05:30',
    end_time: '2026-11-17T02:00:00.5-08:00',
    user_email: 'Ünïcødé+Tag@EXAMPLE.com',
    token_value: 'tök€n ✓',
    virtual_token_value: 'TOKEN-B-8080',
    domains: ['z.example.com', 'a.example.com', 'z.example.com', 'ÄÖÜ.example'],
    mode: 'TCP',
    mode_udp: 'udp',
    client_ip: '[2001:db8::1a2b]:443',
    port: 65535,
    region: 'eu-west',
    nested: { list: [1, 'two', null], flag: true },
  },
  {
    start_time: '2026-11-17T20:15Z',
    end_time: null,
    user_email: ' spaced@example.com ',
    token_value: null,
    virtual_token_value: null,
    domains: [],
    mode: 'tls',
    mode_udp: '',
    client_ip: '[10.0.0.1]:0',
    port: 0,
  },
  {
    start_time: '2026-11-17T23:59:59.999Z',
    end_time: '2026-11-18T00:00:00.000+00:00',
    user_email: 'edge@example.com',
    token_value: '',
    virtual_token_value: '',
    domains: ['ONLY.example.com'],
    mode: 'http',
    mode_udp: '',
    client_ip: '[5.7.152.215]:1',
    port: 1,
  },
];

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
  }, 60_000);
});

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { HISTORY_TOKEN_HASH_COLUMNS, NAMED_SESSIONS_VIEW } from '../../lib/analytics/query/activeViews.ts';
import {
  COUNT_LOST_SESSIONS_SQL,
  LOST_SESSIONS_VIEW,
  localViewSetup,
  localViewStatements,
} from '../../lib/analytics/query/localViews.ts';
import { snapshotActive } from '../../lib/archive/active/snapshotActive.ts';
import { DEFAULT_DATASET, type EmulatedSession } from '../../lib/archive/emulator/dataset.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { SessionArchive } from '../../lib/archive/emulator/sessionArchive.ts';
import { HISTORY_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { countLostSessions } from '../../lib/integrity/verify/countLostSessions.ts';
import { API_KEY, testClient } from '../upstream/testClient.ts';
import { FileRowSink, MemoryActiveState, TOKEN_KEY } from './activeKit.ts';

const START = '2025-03-01T12:00:00.000Z';
const FIVE_MIN = 300_000;
const TICKS = 13; // one hour
/** When history is read: every observed session has ended (max 21 days) and is visible (max lag 48 h). */
const HISTORY_AT = Date.parse('2025-03-25T00:00:00Z');

async function query(dir: string, sql: string, setup = true): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create();
  const conn = await instance.connect();
  try {
    if (setup) for (const statement of localViewStatements(dir)) await conn.run(statement);
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('local views (DuckDB) over an emulator archive', () => {
  let emulator: EmulatorHandle;
  let dir: string;
  let observedIds: Set<string>;
  let historyOfObserved: Map<string, string>; // record_id -> active id
  let droppedGone: string;

  beforeAll(async () => {
    const emuClock = fixedClock(START);
    const clock: Clock = { now: () => emuClock.now(), sleep: async () => {} };
    [emulator, dir] = await Promise.all([
      startEmulator({ clock: emuClock, paidKeys: [API_KEY] }),
      mkdtemp(join(tmpdir(), 'views-')),
    ]);
    const sink = new FileRowSink(dir);
    const state = new MemoryActiveState();
    const api = testClient(emulator.url).client;
    for (let tick = 0; tick < TICKS; tick++) {
      await snapshotActive(
        { api, state, commitRows: sink.commitRows, clock, logger: silentLogger, tokenKey: TOKEN_KEY },
        { tokenPolicy: 'hash', windowDays: 60 },
      );
      emuClock.advance(FIVE_MIN);
    }
    const rows = await sink.rows();
    observedIds = new Set(rows.map((r) => r.id));
    const goneIds = rows
      .filter((r) => r.event === 'gone')
      .map((r) => r.id)
      .sort();

    // History as the archiver would hold it, token digests keyed as active's (the shared HMAC).
    const archive = new SessionArchive(1, DEFAULT_DATASET);
    const byDay = new Map<string, EmulatedSession[]>();
    for (const day of dayRange(addDays(toDay(new Date(START)), -22), toDay(new Date(START)))) {
      byDay.set(
        day,
        archive.sessions(day).filter((s) => archive.isVisible(s, HISTORY_AT)),
      );
    }
    // One gone session is missing from history: the loss the detector must find.
    droppedGone = goneIds.find((id) => [...byDay.values()].flat().some((s) => s.active.id === id)) ?? '';
    historyOfObserved = new Map();
    for (const [day, sessions] of byDay) {
      const kept = sessions.filter((s) => s.active.id !== droppedGone);
      if (kept.length === 0) continue;
      const archived = kept.map((s) => {
        const row = toArchiveRow(s.history, {
          tokenPolicy: 'hash',
          tokenKey: TOKEN_KEY,
          archivedAt: new Date(HISTORY_AT),
        });
        if (observedIds.has(s.active.id)) historyOfObserved.set(row.record_id, s.active.id);
        return row;
      });
      await mkdir(join(dir, 'history', `dt=${day}`), { recursive: true });
      await writeHistoryParquet(archived, join(dir, 'history', `dt=${day}`, 'part-0.parquet'));
    }
  });
  afterAll(async () => {
    await Promise.all([emulator?.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('joins on the history columns the records module writes', () => {
    const names = HISTORY_COLUMNS.map((c) => c.name);
    expect(names).toContain(HISTORY_TOKEN_HASH_COLUMNS.token);
    expect(names).toContain(HISTORY_TOKEN_HASH_COLUMNS.virtualToken);
  });

  it('names at least 95% of the history rows whose sessions were observed active, each correctly', async () => {
    const named = await query(
      dir,
      `SELECT record_id, active_id, virtual_token_name, token_name FROM tunnel_archive.${NAMED_SESSIONS_VIEW}`,
    );
    const total = (await query(dir, 'SELECT count(*) AS n FROM tunnel_archive.tunnel_sessions'))[0]?.n;
    expect(named).toHaveLength(Number(total)); // one output row per history row
    let right = 0;
    let wrong = 0;
    for (const row of named) {
      const truth = historyOfObserved.get(String(row.record_id));
      if (truth === undefined) continue;
      if (row.active_id === truth) right += 1;
      else if (row.active_id !== null) wrong += 1;
    }
    expect(historyOfObserved.size).toBeGreaterThan(300);
    console.info(`naming: ${right}/${historyOfObserved.size} named, ${wrong} wrong`);
    expect(right / historyOfObserved.size).toBeGreaterThanOrEqual(0.95);
    expect(wrong).toBe(0);
  });

  it('the loss detector lists the gone session history never returned, and only it', async () => {
    expect(droppedGone).not.toBe('');
    const lost = await query(dir, `SELECT active_id FROM tunnel_archive.${LOST_SESSIONS_VIEW}`);
    expect(lost.map((r) => r.active_id)).toEqual([droppedGone]);
    expect(await query(dir, COUNT_LOST_SESSIONS_SQL)).toEqual([{ lost: 1n }]);
    // verify's own twin of the view (no DuckDB in the Lambda) counts the same, against the same "now".
    expect(await countLostSessions(createFileObjectStore(dir), { windowDays: 60, now: new Date() })).toBe(1);
  });

  it('runs on an archive without files yet', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'views-empty-'));
    try {
      const instance = await DuckDBInstance.create();
      const conn = await instance.connect();
      for (const s of await localViewSetup(empty)) await conn.run(s);
      const rows = (await conn.runAndReadAll(COUNT_LOST_SESSIONS_SQL)).getRowObjectsJS();
      conn.closeSync();
      instance.closeSync();
      expect(rows).toEqual([{ lost: 0n }]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOST_SESSIONS_VIEW, NAMED_SESSIONS_VIEW } from '../../lib/analytics/query/activeViews.ts';
import { localViewStatements } from '../../lib/analytics/query/localViews.ts';
import { writeActiveParquet } from '../../lib/archive/active/activeParquet.ts';
import type { ActiveRow } from '../../lib/archive/active/activeRow.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { countLostSessions } from '../../lib/integrity/verify/countLostSessions.ts';
import {
  activeRowOf,
  archiveRowOf,
  DOCUMENTED_LIVE,
  documentedHistoryRecord,
  JOIN_SHAPES,
  liveSessionIn,
} from '../support/documentedLiveSession.ts';

const HOUR = 3_600_000;
const OPENED = Date.parse(DOCUMENTED_LIVE.creationTimestamp);
const at = (hours: number) => new Date(OPENED + hours * HOUR);
/** Long after the session ended: its absence from history would count as a loss by now. */
const NOW = at(24 * 10);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-live-history-views-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(
  dataset: 'active' | 'history',
  day: Date,
  name: string,
  rows: ActiveRow[] | ArchiveRow[],
) {
  const folder = join(dir, dataset, `dt=${toDay(day)}`);
  await mkdir(folder, { recursive: true });
  if (dataset === 'active') await writeActiveParquet(rows as ActiveRow[], join(folder, name));
  else await writeHistoryParquet(rows as ArchiveRow[], join(folder, name));
}

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create();
  const conn = await instance.connect();
  try {
    for (const statement of localViewStatements(dir)) await conn.run(statement);
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** The documented session seen live (`shape`), gone 30 hours later, and its history record. */
async function archiveOf(shape: (typeof JOIN_SHAPES)[number], withHistory = true) {
  const live = liveSessionIn(shape);
  await write('active', at(0.1), 'seen.parquet', [activeRowOf(live, 'seen', at(0.1))]);
  await write('active', at(30.1), 'gone.parquet', [activeRowOf(live, 'gone', at(30.1), 1)]);
  if (withHistory)
    await write('history', at(0), 'part-0.parquet', [archiveRowOf(documentedHistoryRecord(), at(31))]);
}

describe.each(JOIN_SHAPES)('the views and the loss count join a live session in the %s shape', (shape) => {
  it('tunnel_sessions_named names the history record with the live session it was', async () => {
    await archiveOf(shape);
    const named = await query(
      `SELECT active_id, token_id, subdomain FROM tunnel_archive.${NAMED_SESSIONS_VIEW}`,
    );
    expect(named).toEqual([
      {
        active_id: DOCUMENTED_LIVE.id,
        token_id: BigInt(DOCUMENTED_LIVE.tokenId),
        subdomain: DOCUMENTED_LIVE.subdomain,
      },
    ]);
  });

  it('tunnel_sessions_lost does not list a session history returned, and lists it when history lacks it', async () => {
    await archiveOf(shape);
    expect(await query(`SELECT active_id FROM tunnel_archive.${LOST_SESSIONS_VIEW}`)).toEqual([]);
    await rm(join(dir, 'history'), { recursive: true });
    // Another tunnel's record keeps history's oldest day before the session's start.
    const other = { ...documentedHistoryRecord(), token_value: 'another-token' };
    await write('history', at(0), 'part-0.parquet', [archiveRowOf(other, at(31))]);
    expect(await query(`SELECT active_id FROM tunnel_archive.${LOST_SESSIONS_VIEW}`)).toEqual([
      { active_id: DOCUMENTED_LIVE.id },
    ]);
  });

  it('countLostSessions (verify) agrees: none when history returned it, one when not', async () => {
    await archiveOf(shape);
    const objects = createFileObjectStore(dir);
    expect(await countLostSessions(objects, { windowDays: 60, now: NOW })).toBe(0);
    const other = { ...documentedHistoryRecord(), token_value: 'another-token' };
    await write('history', at(0), 'part-0.parquet', [archiveRowOf(other, at(31))]);
    expect(await countLostSessions(objects, { windowDays: 60, now: NOW })).toBe(1);
  });
});

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { duckdbRuleEngine } from '../../lib/analytics/detect/duckdbRuleEngine.ts';
import { evaluateRules } from '../../lib/analytics/detect/evaluateRules.ts';
import type { FindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { localCatalog } from '../../lib/analytics/detect/localCatalog.ts';
import { renderRuleSql } from '../../lib/analytics/detect/renderRuleSql.ts';
import type { DetectionRule } from '../../lib/analytics/detect/ruleSchema.ts';
import { writeActiveParquet } from '../../lib/archive/active/activeParquet.ts';
import type { ActiveRow } from '../../lib/archive/active/activeRow.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

/*
 * A local archive for the detection tests: files written into `active/` and `history/` of a folder as the
 * archiver lays them out, and detect run over it as a scheduled run reads it (the folder's catalog).
 */

let files = 0;

/** Writes `rows` as one more Parquet file of `active/dt=<day>/` under `dir`. */
export async function addActiveFile(dir: string, day: Day, rows: ActiveRow[]): Promise<void> {
  const folder = join(dir, 'active', `dt=${day}`);
  await mkdir(folder, { recursive: true });
  await writeActiveParquet(rows, join(folder, `part-${files++}.parquet`));
}

/** Writes `rows` as one more Parquet file of `history/dt=<day>/` under `dir`. */
export async function addHistoryFile(dir: string, day: Day, rows: ArchiveRow[]): Promise<void> {
  const folder = join(dir, 'history', `dt=${day}`);
  await mkdir(folder, { recursive: true });
  await writeHistoryParquet(rows, join(folder, `part-${files++}.parquet`));
}

/** `detect` as scheduled at `now` over the archive in `dir`, with `rules` and the ledger given. */
export async function detectAt(
  dir: string,
  ledger: FindingLedger,
  now: Date,
  rules: readonly DetectionRule[],
): ReturnType<typeof evaluateRules> {
  const engine = await duckdbRuleEngine(await localCatalog(dir));
  try {
    return await evaluateRules(
      { engine, ledger, clock: new ManualClock(now), logger: silentLogger },
      { rules },
    );
  } finally {
    engine.close();
  }
}

/** The rows of `sql`, written as a rule's SQL is (`{{sessions}}` and the rest), at `now` over a window from `since`. */
export async function ruleSqlRows(
  dir: string,
  sql: string,
  since: Date,
  now: Date,
): Promise<Record<string, unknown>[]> {
  const engine = await duckdbRuleEngine(await localCatalog(dir));
  try {
    return await engine.query(renderRuleSql(sql, {}, { since: toDay(since), until: toDay(now), now }));
  } finally {
    engine.close();
  }
}

/** A history row of session `session` on token digest `token` (a UDP tunnel when `udp`), archived when it ended. */
export function tunnelHistoryRow(
  session: string,
  token: string,
  start: Date,
  end: Date | null,
  udp = false,
): ArchiveRow {
  return {
    record_id: `rec-${session}`,
    session_id: session,
    start_time: start,
    end_time: end,
    user_email: 'dev@example.com',
    token_value: null,
    virtual_token_value: null,
    token_hmac: token,
    virtual_token_hmac: null,
    domains: ['demo.a.pinggy.link'],
    mode: udp ? 'tcp' : 'http',
    mode_udp: udp ? 'udp' : '',
    client_ip: '[198.51.100.7]:40000',
    client_address: '198.51.100.7',
    client_port: 40000,
    port: 8080,
    extra_json: null,
    archived_at: end ?? start,
    start_time_text: null,
    end_time_text: null,
  };
}

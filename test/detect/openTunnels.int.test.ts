import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FindingLedger, memoryFindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import type { ActiveEvent, ActiveRow } from '../../lib/archive/active/activeRow.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import {
  addActiveFile,
  addHistoryFile,
  detectAt,
  ruleSqlRows,
  tunnelHistoryRow,
} from '../support/detectArchive.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const rules = await loadRules();
const longTunnel = rules.filter((r) => r.id === 'long_tunnel');
const HOUR = 3_600_000;
const OPENED = new Date('2026-03-02T10:00:00Z');
const at = (hours: number) => new Date(OPENED.getTime() + hours * HOUR);

/** One row of `active/` for the open tunnel `live-1` (token `tok-open`). */
function activeRow(event: ActiveEvent, observedAt: Date, seq: number): ActiveRow {
  return {
    row_id: `row-${seq}`,
    observed_at: observedAt,
    event,
    id: 'live-1',
    user_id: 7,
    token_id: 70,
    token: null,
    token_hmac: 'tok-open',
    token_name: 'demo',
    virtual_token: null,
    virtual_token_hmac: null,
    virtual_token_name: null,
    subdomain: 'demo.a.pinggy.link',
    customdomain: null,
    mode: 'http',
    mode_udp: '',
    port: 8080,
    creation_time: OPENED,
    last_update_time: observedAt,
    extra_json: null,
    join_token_hmac: 'tok-open',
  };
}

const tmp = tempDirPer('ta-open-tunnels-', 'test');

const addActive = (rows: ActiveRow[]) => addActiveFile(tmp.dir, toDay(rows[0]?.observed_at ?? OPENED), rows);
const addHistory = (rows: ArchiveRow[]) =>
  addHistoryFile(tmp.dir, toDay(rows[0]?.start_time ?? OPENED), rows);
/** `detect` as scheduled at `now`: the local archive's catalog, the shared ledger. */
const detect = (ledger: FindingLedger, now: Date) => detectAt(tmp.dir, ledger, now, longTunnel);

/** The sessions `{{sessions}}` holds at `now` (every rule's input), as `session_id`s. */
async function sessionsAt(now: Date): Promise<string[]> {
  const rows = await ruleSqlRows(
    tmp.dir,
    'SELECT session_id, epoch_ms(end_at) AS end_ms FROM {{sessions}} x ORDER BY session_id',
    at(-48),
    now,
  );
  return rows.map((r) => `${r.session_id} ${new Date(Number(r.end_ms)).toISOString()}`);
}

describe('detect reads the tunnels active/ shows open', () => {
  it('finds a 4-day tunnel still open that history has no row of, once; its history row later is the same incident', async () => {
    // Seen when it opened, a heartbeat two days later; history holds only another, ended tunnel.
    await addActive([activeRow('seen', at(0.1), 0)]);
    await addActive([activeRow('changed', at(48), 1)]);
    await addHistory([tunnelHistoryRow('other', 'tok-b', at(72), at(73))]);
    const ledger = memoryFindingLedger('detect');

    const first = await detect(ledger, at(96));
    expect(first.delivered.map((f) => [f.rule_id, f.session_id, f.token_hmac, f.first_seen])).toEqual([
      ['long_tunnel', 'live-1', 'tok-open', OPENED],
    ]);
    // Still open a run later: the same incident, not delivered again.
    const later = await detect(ledger, at(102));
    expect(later.delivered).toEqual([]);
    expect(later.findings.map((f) => f.finding_id)).toEqual([first.delivered[0]?.finding_id]);

    // It closes: the snapshot's gone row, then history's row (another id, same token and start).
    await addActive([activeRow('gone', at(110), 2)]);
    await addHistory([tunnelHistoryRow('hist-1', 'tok-open', OPENED, at(109.9))]);
    const closed = await detect(ledger, at(120));
    expect(closed.delivered).toEqual([]);
    expect(closed.findings.map((f) => [f.finding_id, f.last_seen])).toEqual([
      [first.delivered[0]?.finding_id, at(109.9)],
    ]);
  });

  it('holds each tunnel once: an open one until now, one history holds as history has it, a gone one not', async () => {
    await addActive([activeRow('seen', at(0.1), 0)]);
    // The same tunnel in history (still open there too): history's row, not a second session.
    await addHistory([tunnelHistoryRow('hist-1', 'tok-open', OPENED, null)]);
    expect(await sessionsAt(at(30))).toEqual([`hist-1 ${at(30).toISOString()}`]);

    await rm(join(tmp.dir, 'history'), { recursive: true });
    expect(await sessionsAt(at(30))).toEqual([`live-1 ${at(30).toISOString()}`]);
    // What active/ shows after `now` does not count yet; a tunnel whose last row is gone is not open.
    await addActive([activeRow('gone', at(40), 1)]);
    expect(await sessionsAt(at(30))).toEqual([`live-1 ${at(30).toISOString()}`]);
    expect(await sessionsAt(at(41))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { type FindingLedger, memoryFindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { evaluateLiveRules } from '../../lib/analytics/detect/liveRules.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import type { ActiveRow } from '../../lib/archive/active/activeRow.ts';
import { toStoredFields } from '../../lib/archive/active/storedFields.ts';
import { contentHash } from '../../lib/archive/active/toObservedFields.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { addActiveFile, addHistoryFile, detectAt, ruleSqlRows } from '../support/detectArchive.ts';
import {
  activeRowOf,
  archiveRowOf,
  DOCUMENTED_LIVE,
  documentedHistoryRecord,
  JOIN_SHAPES,
  liveSessionIn,
} from '../support/documentedLiveSession.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const longTunnel = (await loadRules()).filter((r) => r.id === 'long_tunnel');
const HOUR = 3_600_000;
const OPENED = new Date(DOCUMENTED_LIVE.creationTimestamp);
const at = (hours: number) => new Date(OPENED.getTime() + hours * HOUR);

const tmp = tempDirPer('ta-live-history-join-', 'test');

const addActive = (rows: ActiveRow[]) => addActiveFile(tmp.dir, toDay(rows[0]?.observed_at ?? OPENED), rows);
const addHistory = (rows: ArchiveRow[]) => addHistoryFile(tmp.dir, toDay(OPENED), rows);

/** The documented session's history record, archived at `archivedAt` (`end` null: still open there). */
function historyRow(archivedAt: Date, end: Date | null = at(30)): ArchiveRow {
  const row = archiveRowOf(documentedHistoryRecord(), archivedAt);
  return { ...row, end_time: end };
}

const detect = (ledger: FindingLedger, now: Date) => detectAt(tmp.dir, ledger, now, longTunnel);

/** `{{sessions}}` at `now` (every rule's input) as `session_id token_hmac` lines. */
async function sessionsAt(now: Date): Promise<string[]> {
  const rows = await ruleSqlRows(
    tmp.dir,
    'SELECT session_id, token_hmac FROM {{sessions}} x ORDER BY session_id',
    at(-24),
    now,
  );
  return rows.map((r) => `${r.session_id} ${r.token_hmac}`);
}

describe.each(JOIN_SHAPES)(
  'detections join a live session in the %s shape with its history record',
  (shape) => {
    const live = liveSessionIn(shape);
    const history = () => historyRow(at(31));

    it('{{sessions}} holds the tunnel once: history’s row when history has it, the live row with history’s token before', async () => {
      await addActive([activeRowOf(live, 'seen', at(0.1))]);
      const { session_id, token_hmac } = history();
      expect(await sessionsAt(at(20))).toEqual([`${DOCUMENTED_LIVE.id} ${token_hmac}`]);
      await addHistory([historyRow(at(10), null)]);
      expect(await sessionsAt(at(20))).toEqual([`${session_id} ${token_hmac}`]);
    });

    it('long_tunnel alerts the open tunnel once; its history row later is the same incident', async () => {
      await addActive([activeRowOf(live, 'seen', at(0.1))]);
      const ledger = memoryFindingLedger('detect');
      const first = await detect(ledger, at(26));
      expect(first.delivered.map((f) => [f.session_id, f.token_hmac])).toEqual([
        [DOCUMENTED_LIVE.id, history().token_hmac],
      ]);
      await addActive([activeRowOf(live, 'gone', at(30.1), 1)]);
      await addHistory([history()]);
      const closed = await detect(ledger, at(40));
      expect(closed.delivered).toEqual([]);
      expect(closed.findings.map((f) => [f.finding_id, f.last_seen])).toEqual([
        [first.delivered[0]?.finding_id, at(30)],
      ]);
    });

    it('the snapshot’s live long_tunnel keys the incident as the rule’s SQL keys its history row', async () => {
      const { row_id: _r, observed_at: _o, event: _e, ...fields } = activeRowOf(live, 'seen', at(0.1));
      const observations = {
        sessions: {
          [fields.id]: {
            fields: toStoredFields(fields),
            hash: contentHash(fields),
            seq: 1,
            firstSeenAt: at(0.1).toISOString(),
            lastSeenAt: at(26).toISOString(),
          },
        },
      };
      const [liveFinding, ...more] = evaluateLiveRules(observations, at(26), longTunnel);
      expect(more).toEqual([]);
      await addHistory([history()]);
      const scheduled = await detect(memoryFindingLedger('detect'), at(40));
      expect(scheduled.findings.map((f) => f.dedupe_key)).toEqual([liveFinding?.dedupe_key]);
      expect(liveFinding?.token_hmac).toBe(history().token_hmac);
    });
  },
);

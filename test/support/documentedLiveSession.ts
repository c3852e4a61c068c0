import { readFileSync } from 'node:fs';
import type { ActiveEvent, ActiveRow } from '../../lib/archive/active/activeRow.ts';
import { toObservedFields } from '../../lib/archive/active/toObservedFields.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import {
  type ActiveSession,
  activeListSchema,
  type HistoryRecord,
  historyRecordSchema,
} from '../../lib/archive/records/schemas.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';

/**
 * The two shapes of a live session these tests join with history: `documented`, the service's documented
 * example as it is (`token: null`, `virtualToken: "<token>-<port>"`), and `token-filled`, the same session
 * with `token` set.
 */
export const JOIN_SHAPES = ['documented', 'token-filled'] as const;
export type JoinShape = (typeof JOIN_SHAPES)[number];

/** The token key both datasets are keyed with here. */
export const JOIN_TOKEN_KEY = new Uint8Array(32).fill(11);

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

/** The documented active-list example, parsed as the client parses it. */
export const DOCUMENTED_LIVE: ActiveSession = (() => {
  const session = activeListSchema.parse(fixture('active-documented.json'))[0];
  if (session === undefined) throw new Error('active-documented.json lists no session');
  return session;
})();

/** The token inside the documented `virtualToken` (its text before `-<port>`), spelled out independently. */
export const DOCUMENTED_TOKEN = DOCUMENTED_LIVE.virtualToken.slice(0, -`-${DOCUMENTED_LIVE.port}`.length);

/** The documented session in `shape`. */
export function liveSessionIn(shape: JoinShape): ActiveSession {
  return shape === 'documented' ? DOCUMENTED_LIVE : { ...DOCUMENTED_LIVE, token: DOCUMENTED_TOKEN };
}

/**
 * The history record of the documented session: the documented history example, moved to the session's
 * start, token, mode and port, ended `endMs` after its start (default 30 hours).
 */
export function documentedHistoryRecord(endMs = 30 * 3_600_000): HistoryRecord {
  const page = fixture('history-documented.json') as { content: unknown[] };
  const example = historyRecordSchema.parse(page.content[0]);
  const start = Date.parse(DOCUMENTED_LIVE.creationTimestamp);
  return {
    ...example,
    start_time: DOCUMENTED_LIVE.creationTimestamp,
    end_time: new Date(start + endMs).toISOString().replace('Z', '+00:00'),
    token_value: DOCUMENTED_TOKEN,
    virtual_token_value: null,
    mode: DOCUMENTED_LIVE.mode,
    port: DOCUMENTED_LIVE.port,
  };
}

/** One `active/` row of `session` as the snapshot writes it under the `hash` policy. */
export function activeRowOf(
  session: ActiveSession,
  event: ActiveEvent,
  observedAt: Date,
  seq = 0,
): ActiveRow {
  return {
    row_id: `${event}-${seq}`.padEnd(32, '0'),
    observed_at: observedAt,
    event,
    ...toObservedFields(session, { tokenPolicy: 'hash', tokenKey: JOIN_TOKEN_KEY }),
  };
}

/** `record` as the archiver writes it under the `hash` policy. */
export function archiveRowOf(record: HistoryRecord, archivedAt: Date): ArchiveRow {
  return toArchiveRow(record, { tokenPolicy: 'hash', tokenKey: JOIN_TOKEN_KEY, archivedAt });
}

import { formatIssues } from './formatIssues.ts';
import { clientPortProblem } from './parseClientAddress.ts';
import { plainHistoryRecord } from './plainHistoryRecord.ts';
import { type HistoryRecord, historyRecordSchema } from './schemas.ts';
import { toEpochMs } from './toEpochMs.ts';

/** No session of the archive can start before this instant (2000-01-01T00:00:00Z). */
export const EARLIEST_INSTANT_MS = Date.UTC(2000, 0, 1);
/** How far past `now` a timestamp may lie (clock skew between us and the upstream). */
export const FUTURE_SLACK_MS = 2 * 86_400_000;

/** A record that passed every check, or the reason it did not. */
export type ValidatedRecord = { ok: true; record: HistoryRecord } | { ok: false; reason: string };

/**
 * Judges one history item alone: the wire schema (types, strict ISO 8601 instants with an offset,
 * `port` in 0..65535, `domains` an array of strings), then the checks that need the clock:
 * `start_time` and `end_time` between 2000-01-01T00:00:00Z and `now` + 2 days, `end_time` ≥
 * `start_time` (a null `end_time` is allowed), and a `client_ip` port in 0..65535. Never throws, so a
 * bad item is quarantined with its reason instead of failing its page. `now` is the run clock's now.
 */
export function validateHistoryRecord(raw: unknown, now: Date): ValidatedRecord {
  let record = plainHistoryRecord(raw);
  if (record === undefined) {
    const parsed = historyRecordSchema.safeParse(raw);
    if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error) };
    record = parsed.data;
  }
  const latest = now.getTime() + FUTURE_SLACK_MS;
  const start = toEpochMs(record.start_time);
  const end = record.end_time === null ? null : toEpochMs(record.end_time);
  const portProblem = clientPortProblem(record.client_ip);
  const fine =
    start >= EARLIEST_INSTANT_MS &&
    start <= latest &&
    (end === null || (end >= start && end <= latest)) &&
    portProblem === undefined;
  if (fine) return { ok: true, record };
  const problems: string[] = [];
  rangeProblem(problems, 'start_time', start, latest, now);
  if (end !== null) rangeProblem(problems, 'end_time', end, latest, now);
  if (end !== null && end < start) problems.push('end_time: before start_time');
  if (portProblem !== undefined) problems.push(`client_ip: ${portProblem}`);
  return problems.length === 0 ? { ok: true, record } : { ok: false, reason: problems.join('; ') };
}

function rangeProblem(problems: string[], field: string, ms: number, latest: number, now: Date): void {
  if (ms < EARLIEST_INSTANT_MS) problems.push(`${field}: before 2000-01-01T00:00:00Z`);
  else if (ms > latest) problems.push(`${field}: more than 2 days after now (${now.toISOString()})`);
}

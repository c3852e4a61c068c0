import { toOcsfDetectionFinding } from '../ocsf/toOcsfDetectionFinding.ts';
import { HISTORY_TABLE } from '../query/activeViews.ts';
import { sqlString } from '../query/sqlString.ts';
import type { Finding } from './finding.ts';
import type { DetectionRule } from './ruleSchema.ts';

/** SNS's limit for one message, bytes (subject and attributes aside). */
export const SNS_MESSAGE_LIMIT = 256 * 1024;
/** Record ids a message names at most; `record_count` and `rows_sql` cover all of them. */
export const MESSAGE_RECORD_SAMPLE = 50;

/** The SQL that lists every row of a finding (Athena and `tunnel-archiver query` alike): the rule's `rows_filter`. */
export function rowsSqlOf(
  f: Pick<Finding, 'entity' | 'token_hmac' | 'client_network' | 'session_id' | 'first_seen' | 'last_seen'>,
  rule: Pick<DetectionRule, 'rows_filter'>,
): string {
  const values: Record<string, string | null> = {
    entity: f.entity,
    token_hmac: f.token_hmac,
    client_network: f.client_network,
    session_id: f.session_id,
  };
  const filter = rule.rows_filter.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = values[name];
    return v === null || v === undefined ? 'NULL' : sqlString(v);
  });
  const since = new Date(f.first_seen.getTime() - 86_400_000).toISOString().slice(0, 10);
  const until = f.last_seen.toISOString().slice(0, 10);
  return `SELECT * FROM ${HISTORY_TABLE} WHERE dt >= '${since}' AND dt <= '${until}' AND start_time >= from_iso8601_timestamp('${new Date(f.first_seen.getTime() - 86_400_000).toISOString()}') AND (${filter}) ORDER BY start_time`;
}

/**
 * What is delivered for one new incident (SNS): a subject, and a message with the finding as OCSF
 * Detection Finding, the rule's runbook, the count of records, a bounded sample of their ids and the
 * SQL that lists them all, so it stays under SNS's 256 KB however many records it has.
 */
export function findingMessage(f: Finding, rule: DetectionRule): { subject: string; message: string } {
  // SNS subjects: printable ASCII, under 100 characters.
  const subject = `[${f.severity.toUpperCase()}] ${f.title}: ${f.entity}`
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 99);
  const build = (sample: number, entityMax: number) => {
    const bounded: Finding = {
      ...f,
      entity: f.entity.slice(0, entityMax),
      record_ids: f.record_ids.slice(0, sample),
    };
    return JSON.stringify({
      rule: f.rule_id,
      rule_uid: f.rule_uid,
      severity: f.severity,
      entity: bounded.entity,
      record_count: f.record_count,
      record_ids_sample: bounded.record_ids,
      runbook: rule.runbook,
      rows_sql: rowsSqlOf(bounded, rule),
      ocsf: toOcsfDetectionFinding(bounded, rule),
    });
  };
  let message = build(MESSAGE_RECORD_SAMPLE, 4096);
  if (Buffer.byteLength(message) > SNS_MESSAGE_LIMIT - 1024) message = build(5, 256);
  return { subject, message };
}

import { toOcsfDetectionFinding } from '../ocsf/toOcsfDetectionFinding.ts';
import { HISTORY_TABLE } from '../query/activeViews.ts';
import { sqlString } from '../query/sqlString.ts';
import type { Finding } from './finding.ts';
import type { DetectionRule } from './ruleSchema.ts';

/** The SQL that shows a finding's rows (Athena and `tunnel-archiver query` alike). */
export function rowsSqlOf(f: Finding): string {
  if (f.record_ids.length === 0)
    return `-- a live finding: see tunnel_active_sessions WHERE id = ${sqlString(f.entity)}`;
  const ids = f.record_ids.map(sqlString).join(', ');
  return `SELECT * FROM ${HISTORY_TABLE} WHERE dt >= '${f.first_seen.toISOString().slice(0, 10)}' AND record_id IN (${ids})`;
}

/**
 * What is delivered for one new finding (SNS): a subject, and a message with the finding as OCSF
 * Detection Finding, the rule's runbook and the SQL to see the rows behind it.
 */
export function findingMessage(f: Finding, rule: DetectionRule): { subject: string; message: string } {
  // SNS subjects: printable ASCII, under 100 characters.
  const subject = `[${f.severity.toUpperCase()}] ${f.title}: ${f.entity}`
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 99);
  const message = JSON.stringify({
    rule: f.rule_id,
    severity: f.severity,
    entity: f.entity,
    runbook: rule.runbook,
    rows_sql: rowsSqlOf(f),
    ocsf: toOcsfDetectionFinding(f, rule),
  });
  return { subject, message };
}

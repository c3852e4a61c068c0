import { detectionFindingMapping, type OcsfRule, RELATED_EVENT } from './detectionFindingMapping.ts';
import { mappedSqlFields } from './mappedField.ts';
import { type OcsfField, prestoType, selectList, viewColumns } from './ocsfField.ts';
import { type OcsfProfile, SESSION_EVENT_UID_SQL } from './ocsfProfile.ts';

/** The findings view's fields: the Detection Finding mapping as SQL, the rules' values picked by rule id. */
export const findingsOcsfFields = (p: OcsfProfile, rules: readonly OcsfRule[]): OcsfField[] =>
  mappedSqlFields(detectionFindingMapping(p), rules);

/**
 * Findings as OCSF Detection Finding (2004): a finding's stored row of revision 0 (the `revision` column
 * the findings dataset stores, which the incident ledger counts) is its Create event, each later revision
 * (the incident grew: more hits, a later last_seen) an Update. Every revision keeps the incident's
 * `detected_at`, so it cannot order them. `related_events` name
 * the Open event of every session behind the finding's `record_ids` (`<session_id>:open`, the uid the
 * sessions mapping gives it). Trino SQL; DuckDB runs it unchanged with the shims.
 */
export function findingsOcsfSql(
  tables: { findings: string; history: string },
  p: OcsfProfile,
  rules: readonly OcsfRule[],
): string {
  const openTypeUid = p.sessionClass.uid * 100 + 1;
  return `WITH linked AS (
  SELECT finding_id, detected_at,
    array_agg(CAST(ROW(${SESSION_EVENT_UID_SQL('session_id', 'open')}, ${openTypeUid}, '${p.sessionClass.name}: Open')
      AS ${prestoType(RELATED_EVENT)}) ORDER BY session_id) AS related_events
  FROM (
    SELECT DISTINCT f.finding_id, f.detected_at, h.session_id
    FROM ${tables.findings} f CROSS JOIN UNNEST(f.record_ids) AS u(record_id)
    JOIN ${tables.history} h ON h.record_id = u.record_id
  ) sessions_of
  GROUP BY finding_id, detected_at
)
SELECT
${selectList(findingsOcsfFields(p, rules))}
FROM ${tables.findings} f
LEFT JOIN linked l ON l.finding_id = f.finding_id AND l.detected_at = f.detected_at`;
}

/** The columns of the findings view, in order. */
export const findingsOcsfColumns = (p: OcsfProfile, rules: readonly OcsfRule[]) =>
  viewColumns(findingsOcsfFields(p, rules));

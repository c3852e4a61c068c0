import { attacksOf, type RuleAttack } from './attackOf.ts';
import {
  constant,
  leaf,
  type OcsfField,
  type OcsfType,
  prestoType,
  row,
  selectList,
  viewColumns,
} from './ocsfField.ts';
import {
  DETECTION_FINDING,
  LOGGING_PRODUCT,
  OCSF_SEVERITY_ID,
  type OcsfProfile,
  SESSION_EVENT_UID_SQL,
} from './ocsfProfile.ts';
import { epochMsSql } from './sessionsOcsfSql.ts';

/** What the mapping takes from a rule (detections/<id>.yml); further fields are ignored. */
export interface OcsfRule {
  id: string;
  runbook?: string;
  attack: RuleAttack;
}

const NAMED: OcsfType = { row: [leaf('uid', 'varchar', ''), leaf('name', 'varchar', '')] };
const ATTACK: OcsfType = {
  array: {
    row: [leaf('tactic', NAMED, ''), leaf('technique', NAMED, ''), leaf('sub_technique', NAMED, '')],
  },
};
const RELATED_EVENT: OcsfType = {
  row: [leaf('uid', 'varchar', ''), leaf('type_uid', 'bigint', ''), leaf('type', 'varchar', '')],
};

/** `CASE f.rule_id WHEN ... END` of a per-rule value (NULL for a rule the list does not hold). */
function perRule(rules: readonly OcsfRule[], valueType: OcsfType, pick: (r: OcsfRule) => unknown): string {
  const whens = rules.map(
    (r) => `WHEN '${r.id.replaceAll("'", "''")}' THEN ${constant('', valueType, pick(r)).sql}`,
  );
  return whens.length === 0 ? 'NULL' : `CASE f.rule_id ${whens.join(' ')} END`;
}

export function findingsOcsfFields(p: OcsfProfile, rules: readonly OcsfRule[]): OcsfField[] {
  const activityName = "CASE WHEN f.revision = 1 THEN 'Create' ELSE 'Update' END";
  const severityCase = (value: (s: string, id: number) => string) =>
    `CASE f.severity ${Object.entries(OCSF_SEVERITY_ID)
      .map(([s, id]) => `WHEN '${s}' THEN ${value(s, id)}`)
      .join(' ')} ELSE ${value('unknown', 0)} END`;
  return [
    leaf('activity_id', 'integer', 'CASE WHEN f.revision = 1 THEN 1 ELSE 2 END'),
    leaf('activity_name', 'varchar', activityName),
    constant('category_uid', 'integer', DETECTION_FINDING.category_uid),
    constant('category_name', 'varchar', 'Findings'),
    constant('class_uid', 'integer', DETECTION_FINDING.uid),
    constant('class_name', 'varchar', DETECTION_FINDING.name),
    leaf(
      'type_uid',
      'bigint',
      `CASE WHEN f.revision = 1 THEN ${DETECTION_FINDING.uid * 100 + 1} ELSE ${DETECTION_FINDING.uid * 100 + 2} END`,
    ),
    leaf('type_name', 'varchar', `'${DETECTION_FINDING.name}: ' || ${activityName}`),
    leaf(
      'severity_id',
      'integer',
      severityCase((_, id) => String(id)),
    ),
    leaf(
      'severity',
      'varchar',
      severityCase((s) => `'${s === 'unknown' ? 'Unknown' : s[0]?.toUpperCase() + s.slice(1)}'`),
    ),
    constant('status_id', 'integer', 1),
    constant('status', 'varchar', 'New'),
    leaf('time', 'bigint', epochMsSql('f.detected_at')),
    leaf('count', 'integer', 'f.hits'),
    row('finding_info', [
      leaf('uid', 'varchar', 'f.finding_id'),
      leaf('title', 'varchar', 'f.title'),
      leaf(
        'desc',
        'varchar',
        perRule(rules, 'varchar', (r) => r.runbook),
      ),
      leaf('types', { array: 'varchar' }, 'ARRAY[f.rule_id]'),
      leaf('first_seen_time', 'bigint', epochMsSql('f.first_seen')),
      leaf('last_seen_time', 'bigint', epochMsSql('f.last_seen')),
      row('analytic', [
        leaf('uid', 'varchar', 'f.rule_id'),
        leaf('name', 'varchar', 'f.title'),
        constant('type_id', 'integer', 1),
        constant('type', 'varchar', 'Rule'),
      ]),
      leaf(
        'attacks',
        ATTACK,
        perRule(rules, ATTACK, (r) => attacksOf(r.attack)),
      ),
      leaf('related_events', { array: RELATED_EVENT }, 'l.related_events'),
    ]),
    row('metadata', [
      leaf('uid', 'varchar', `f.finding_id || ':' || CAST(${epochMsSql('f.detected_at')} AS varchar)`),
      constant('version', 'varchar', p.version),
      constant(
        'product',
        { row: [leaf('name', 'varchar', ''), leaf('vendor_name', 'varchar', '')] },
        LOGGING_PRODUCT,
      ),
      leaf('logged_time', 'bigint', epochMsSql('f.detected_at')),
      leaf('correlation_uid', 'varchar', 'f.finding_id'),
    ]),
    row('unmapped', [
      leaf('entity', 'varchar', 'f.entity'),
      leaf('token_hmac', 'varchar', 'f.token_hmac'),
      leaf('client_network', 'varchar', 'f.client_network'),
      leaf('session_id', 'varchar', 'f.session_id'),
      leaf('source', 'varchar', 'f.source'),
    ]),
  ];
}

/**
 * Findings as OCSF Detection Finding (2004): the first stored row of a finding is its Create event,
 * each later row (the incident grew: more hits, a later last_seen) an Update. `related_events` name
 * the Open event of every session behind the finding's `record_ids` (`<session_id>:open`, the uid the
 * sessions mapping gives it). Trino SQL; DuckDB runs it unchanged with the shims.
 */
export function findingsOcsfSql(
  tables: { findings: string; history: string },
  p: OcsfProfile,
  rules: readonly OcsfRule[],
): string {
  const openTypeUid = p.sessionClass.uid * 100 + 1;
  return `WITH f AS (
  SELECT x.*, row_number() OVER (PARTITION BY x.finding_id ORDER BY x.detected_at) AS revision
  FROM ${tables.findings} x
),
linked AS (
  SELECT finding_id, detected_at,
    array_agg(CAST(ROW(${SESSION_EVENT_UID_SQL('session_id', 'open')}, ${openTypeUid}, '${p.sessionClass.name}: Open')
      AS ${prestoType(RELATED_EVENT)}) ORDER BY session_id) AS related_events
  FROM (
    SELECT DISTINCT f.finding_id, f.detected_at, h.session_id
    FROM f CROSS JOIN UNNEST(f.record_ids) AS u(record_id)
    JOIN ${tables.history} h ON h.record_id = u.record_id
  ) sessions_of
  GROUP BY finding_id, detected_at
)
SELECT
${selectList(findingsOcsfFields(p, rules))}
FROM f
LEFT JOIN linked l ON l.finding_id = f.finding_id AND l.detected_at = f.detected_at`;
}

/** The columns of the findings view, in order. */
export const findingsOcsfColumns = (p: OcsfProfile, rules: readonly OcsfRule[]) =>
  viewColumns(findingsOcsfFields(p, rules));

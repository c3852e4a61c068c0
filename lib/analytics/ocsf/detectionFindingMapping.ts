import { attacksOf, type RuleAttack } from './attackOf.ts';
import type { FindingActivity } from './findingActivity.ts';
import type { MappedField, Source } from './mappedField.ts';
import { leaf, type OcsfType } from './ocsfField.ts';
import { DETECTION_FINDING, LOGGING_PRODUCT, OCSF_SEVERITY_ID, type OcsfProfile } from './ocsfProfile.ts';

/** What the mapping takes from a rule (detections/<id>.yml); further fields are ignored. */
export interface OcsfRule {
  id: string;
  runbook?: string;
  attack: RuleAttack;
}

/** A finding's row as the mapping reads it: a row of `findings/`, or a live finding (lib/analytics/detect's `Finding`). */
export interface OcsfFindingInput extends FindingActivity {
  finding_id: string;
  rule_id: string;
  title: string;
  severity: keyof typeof OCSF_SEVERITY_ID;
  source: string;
  detected_at: Date;
}

type Field = MappedField<OcsfFindingInput, OcsfRule>;
type From = Source<OcsfFindingInput, OcsfRule>;

const NAMED: OcsfType = { row: [leaf('uid', 'varchar', ''), leaf('name', 'varchar', '')] };
const ATTACK: OcsfType = {
  array: {
    row: [leaf('tactic', NAMED, ''), leaf('technique', NAMED, ''), leaf('sub_technique', NAMED, '')],
  },
};
const PRODUCT: OcsfType = { row: [leaf('name', 'varchar', ''), leaf('vendor_name', 'varchar', '')] };

/** A session event a finding names (`finding_info.related_events`). */
export const RELATED_EVENT: OcsfType = {
  row: [leaf('uid', 'varchar', ''), leaf('type_uid', 'bigint', ''), leaf('type', 'varchar', '')],
};

const is = (name: string, type: OcsfType, from: From): Field => ({ name, type, from });
const fixed = (name: string, type: OcsfType, value: unknown): Field => ({ name, type, from: { value } });
const object = (name: string, fields: readonly Field[]): Field => ({ name, fields });

/** The first stored row of a finding is its Create event, each later row an Update. */
const activity = (create: unknown, update: unknown): From => ({
  firstRevision: { value: create },
  later: { value: update },
});
const ACTIVITY_NAME = activity('Create', 'Update');
const SEVERITY_NAME = Object.fromEntries(
  Object.keys(OCSF_SEVERITY_ID).map((s) => [s, `${s.slice(0, 1).toUpperCase()}${s.slice(1)}`]),
);

/**
 * A finding as OCSF Detection Finding (2004), attribute by attribute: the one declaration from which
 * the findings view's SQL (`findingsOcsfSql`) and the live form (`toOcsfDetectionFinding`) are made.
 * `related_events` join history, so only the SQL has them.
 */
export function detectionFindingMapping(p: OcsfProfile): readonly Field[] {
  return [
    is('activity_id', 'integer', activity(1, 2)),
    is('activity_name', 'varchar', ACTIVITY_NAME),
    fixed('category_uid', 'integer', DETECTION_FINDING.category_uid),
    fixed('category_name', 'varchar', 'Findings'),
    fixed('class_uid', 'integer', DETECTION_FINDING.uid),
    fixed('class_name', 'varchar', DETECTION_FINDING.name),
    is('type_uid', 'bigint', activity(DETECTION_FINDING.uid * 100 + 1, DETECTION_FINDING.uid * 100 + 2)),
    is('type_name', 'varchar', { concat: [{ value: `${DETECTION_FINDING.name}: ` }, ACTIVITY_NAME] }),
    is('severity_id', 'integer', { lookup: 'severity', table: OCSF_SEVERITY_ID, otherwise: 0 }),
    is('severity', 'varchar', { lookup: 'severity', table: SEVERITY_NAME, otherwise: 'Unknown' }),
    fixed('status_id', 'integer', 1),
    fixed('status', 'varchar', 'New'),
    is('time', 'bigint', { epochMs: 'detected_at' }),
    is('count', 'integer', { column: 'hits' }),
    object('finding_info', [
      is('uid', 'varchar', { column: 'finding_id' }),
      is('title', 'varchar', { column: 'title' }),
      is('desc', 'varchar', { perRule: (r) => r.runbook }),
      is('types', { array: 'varchar' }, { arrayOf: [{ column: 'rule_id' }] }),
      is('first_seen_time', 'bigint', { epochMs: 'first_seen' }),
      is('last_seen_time', 'bigint', { epochMs: 'last_seen' }),
      object('analytic', [
        is('uid', 'varchar', { column: 'rule_id' }),
        is('name', 'varchar', { column: 'title' }),
        fixed('type_id', 'integer', 1),
        fixed('type', 'varchar', 'Rule'),
      ]),
      is('attacks', ATTACK, { perRule: (r) => attacksOf(r.attack) }),
      is('related_events', { array: RELATED_EVENT }, { sqlOnly: 'l.related_events' }),
    ]),
    object('metadata', [
      is('uid', 'varchar', {
        concat: [{ column: 'finding_id' }, { value: ':' }, { text: { epochMs: 'detected_at' } }],
      }),
      fixed('version', 'varchar', p.version),
      fixed('product', PRODUCT, LOGGING_PRODUCT),
      is('logged_time', 'bigint', { epochMs: 'detected_at' }),
      is('correlation_uid', 'varchar', { column: 'finding_id' }),
    ]),
    object('unmapped', [
      is('entity', 'varchar', { column: 'entity' }),
      is('token_hmac', 'varchar', { column: 'token_hmac' }),
      is('client_network', 'varchar', { column: 'client_network' }),
      is('session_id', 'varchar', { column: 'session_id' }),
      is('source', 'varchar', { column: 'source' }),
    ]),
  ];
}

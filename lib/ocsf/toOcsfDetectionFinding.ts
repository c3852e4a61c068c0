import { attacksOf } from './attackOf.ts';
import type { OcsfRule } from './findingsOcsfSql.ts';
import { DETECTION_FINDING, LOGGING_PRODUCT, OCSF_1_8, OCSF_SEVERITY_ID } from './ocsfProfile.ts';
import { stripNulls } from './stripNulls.ts';

/** What the SNS form reads of a finding (lib/detect's `Finding` has these and more). */
export interface OcsfFindingInput {
  finding_id: string;
  rule_id: string;
  title: string;
  severity: keyof typeof OCSF_SEVERITY_ID;
  source: string;
  entity: string;
  token_hmac: string | null;
  client_network: string | null;
  session_id: string | null;
  first_seen: Date;
  last_seen: Date;
  hits: number;
  detected_at: Date;
}

const capitalised = (s: string) => `${s.slice(0, 1).toUpperCase()}${s.slice(1)}`;

/**
 * One new finding as the OCSF 1.8.0 Detection Finding (2004) Create event SNS delivers: the same
 * fields and values as the findings view's first row of that finding, except `related_events`
 * (the delivery names no session events; `rows_sql` beside it shows the rows).
 */
export function toOcsfDetectionFinding(f: OcsfFindingInput, rule: OcsfRule): Record<string, unknown> {
  const detected = f.detected_at.getTime();
  return stripNulls({
    activity_id: 1,
    activity_name: 'Create',
    category_uid: DETECTION_FINDING.category_uid,
    category_name: 'Findings',
    class_uid: DETECTION_FINDING.uid,
    class_name: DETECTION_FINDING.name,
    type_uid: DETECTION_FINDING.uid * 100 + 1,
    type_name: `${DETECTION_FINDING.name}: Create`,
    severity_id: OCSF_SEVERITY_ID[f.severity] ?? 0,
    severity: OCSF_SEVERITY_ID[f.severity] === undefined ? 'Unknown' : capitalised(f.severity),
    status_id: 1,
    status: 'New',
    time: detected,
    count: f.hits,
    finding_info: {
      uid: f.finding_id,
      title: f.title,
      desc: rule.runbook,
      types: [f.rule_id],
      first_seen_time: f.first_seen.getTime(),
      last_seen_time: f.last_seen.getTime(),
      analytic: { uid: f.rule_id, name: f.title, type_id: 1, type: 'Rule' },
      attacks: attacksOf(rule.attack),
    },
    metadata: {
      uid: `${f.finding_id}:${detected}`,
      version: OCSF_1_8.version,
      product: LOGGING_PRODUCT,
      logged_time: detected,
      correlation_uid: f.finding_id,
    },
    unmapped: {
      entity: f.entity,
      token_hmac: f.token_hmac,
      client_network: f.client_network,
      session_id: f.session_id,
      source: f.source,
    },
  }) as Record<string, unknown>;
}

import { ARCHIVE_DATABASE, HISTORY_TABLE } from '../query/activeViews.ts';
import type { Finding } from './finding.ts';
import { FINDINGS_TABLE } from './findingsDataset.ts';
import type { DetectionRule, Severity } from './ruleSchema.ts';

/** OCSF schema version the mappings follow. */
export const OCSF_VERSION = '1.3.0';
export const TUNNEL_SESSIONS_OCSF_VIEW = 'tunnel_sessions_ocsf';
export const FINDINGS_OCSF_VIEW = 'tunnel_findings_ocsf';

/** OCSF severity_id: 1 Informational, 2 Low, 3 Medium, 4 High, 5 Critical. */
export const OCSF_SEVERITY_ID: Record<Severity, number> = {
  informational: 1,
  low: 2,
  medium: 3,
  high: 4,
  critical: 5,
};

const PRODUCT = "CAST(ROW('tunnel-archiver', 'tunnel-archiver') AS ROW(name varchar, vendor_name varchar))";

/** A view column: its Glue (Hive) type and the Presto/Trino type the view declares. */
export interface OcsfColumn {
  name: string;
  athenaType: string;
  prestoType: string;
}

const col = (name: string, athenaType: string, prestoType: string): OcsfColumn => ({
  name,
  athenaType,
  prestoType,
});
const META = col(
  'metadata',
  'struct<uid:string,version:string,product:struct<name:string,vendor_name:string>>',
  'row(uid varchar, version varchar, product row(name varchar, vendor_name varchar))',
);

/** Columns of `tunnel_sessions_ocsf` (OCSF Tunnel Activity, class_uid 4014), in view order. */
const INT = ['int', 'integer'] as const;
/** The class, category and activity every OCSF event starts with. */
const HEAD = ['class_uid', 'category_uid', 'activity_id'].map((n) => col(n, ...INT));

export const TUNNEL_SESSIONS_OCSF_COLUMNS: OcsfColumn[] = [
  ...HEAD,
  col('activity_name', 'string', 'varchar'),
  col('type_uid', 'int', 'integer'),
  col('time', 'timestamp', 'timestamp(3)'),
  col('duration', 'bigint', 'bigint'),
  col('user', 'struct<email_addr:string>', 'row(email_addr varchar)'),
  col('src_endpoint', 'struct<ip:string,port:int>', 'row(ip varchar, port integer)'),
  col('dst_endpoint', 'struct<hostname:string,port:int>', 'row(hostname varchar, port integer)'),
  col('session', 'struct<uid:string>', 'row(uid varchar)'),
  META,
  col('dt', 'string', 'varchar'),
];

function activityRows(activityId: 1 | 2, name: 'Open' | 'Close', time: string): string {
  return `SELECT 4014 AS class_uid, 4 AS category_uid, ${activityId} AS activity_id, '${name}' AS activity_name,
    ${401400 + activityId} AS type_uid, ${time} AS "time",
    CAST(date_diff('millisecond', start_time, end_time) AS bigint) AS duration,
    CAST(ROW(user_email) AS ROW(email_addr varchar)) AS "user",
    CAST(ROW(client_address, client_port) AS ROW(ip varchar, port integer)) AS src_endpoint,
    CAST(ROW(element_at(domains, 1), port) AS ROW(hostname varchar, port integer)) AS dst_endpoint,
    CAST(ROW(session_id) AS ROW(uid varchar)) AS session,
    CAST(ROW(record_id || ':${name.toLowerCase()}', '${OCSF_VERSION}', ${PRODUCT})
      AS ROW(uid varchar, version varchar, product ROW(name varchar, vendor_name varchar))) AS metadata,
    dt
  FROM ${ARCHIVE_DATABASE}.${HISTORY_TABLE}${activityId === 2 ? '\n  WHERE end_time IS NOT NULL' : ''}`;
}

/**
 * History as OCSF Tunnel Activity (4014): each session is an Open event at `start_time` and, once it
 * ended, a Close event at `end_time` (Athena/Trino SQL: ROW types; deployed as a Glue view).
 */
export function tunnelSessionsOcsfSql(): string {
  return `${activityRows(1, 'Open', 'start_time')}\nUNION ALL\n${activityRows(2, 'Close', 'end_time')}`;
}

/** Columns of `tunnel_findings_ocsf` (OCSF Detection Finding, class_uid 2004). */
export const FINDINGS_OCSF_COLUMNS: OcsfColumn[] = [
  ...HEAD,
  ...['type_uid', 'severity_id'].map((n) => col(n, ...INT)),
  col('severity', 'string', 'varchar'),
  col('status_id', ...INT),
  col('time', 'timestamp', 'timestamp(3)'),
  col('count', 'int', 'integer'),
  col(
    'finding_info',
    'struct<uid:string,title:string,types:array<string>,first_seen_time:timestamp,last_seen_time:timestamp,analytic:struct<uid:string,name:string,type_id:int>>',
    'row(uid varchar, title varchar, types array(varchar), first_seen_time timestamp(3), last_seen_time timestamp(3), analytic row(uid varchar, name varchar, type_id integer))',
  ),
  col(
    'unmapped',
    'struct<entity:string,token_hmac:string,client_network:string,session_id:string,record_ids:array<string>>',
    'row(entity varchar, token_hmac varchar, client_network varchar, session_id varchar, record_ids array(varchar))',
  ),
  META,
  col('dt', 'string', 'varchar'),
];

/** Findings as OCSF Detection Finding (2004), Athena/Trino SQL over `tunnel_findings`. */
export function findingsOcsfSql(): string {
  const severityId = Object.entries(OCSF_SEVERITY_ID)
    .map(([s, id]) => `WHEN '${s}' THEN ${id}`)
    .join(' ');
  return `SELECT 2004 AS class_uid, 2 AS category_uid, 1 AS activity_id, 200401 AS type_uid,
  CASE severity ${severityId} ELSE 0 END AS severity_id, severity, 1 AS status_id, detected_at AS "time",
  hits AS "count",
  CAST(ROW(finding_id, title, ARRAY[rule_id], first_seen, last_seen, ROW(rule_id, title, 1))
    AS ROW(uid varchar, title varchar, types array(varchar), first_seen_time timestamp(3),
      last_seen_time timestamp(3), analytic ROW(uid varchar, name varchar, type_id integer))) AS finding_info,
  CAST(ROW(entity, token_hmac, client_network, session_id, record_ids)
    AS ROW(entity varchar, token_hmac varchar, client_network varchar, session_id varchar,
      record_ids array(varchar))) AS unmapped,
  CAST(ROW(finding_id, '${OCSF_VERSION}', ${PRODUCT})
    AS ROW(uid varchar, version varchar, product ROW(name varchar, vendor_name varchar))) AS metadata,
  dt
FROM ${ARCHIVE_DATABASE}.${FINDINGS_TABLE}`;
}

/** One finding as an OCSF Detection Finding (2004) object: what SNS delivers, beside the runbook. */
export function toOcsfDetectionFinding(f: Finding, rule: DetectionRule): Record<string, unknown> {
  return {
    class_uid: 2004,
    category_uid: 2,
    activity_id: 1,
    type_uid: 200401,
    severity_id: OCSF_SEVERITY_ID[f.severity],
    severity: f.severity,
    status_id: 1,
    time: f.detected_at.getTime(),
    count: f.hits,
    finding_info: {
      uid: f.finding_id,
      title: f.title,
      desc: rule.runbook,
      types: [f.rule_id],
      first_seen_time: f.first_seen.getTime(),
      last_seen_time: f.last_seen.getTime(),
      analytic: { uid: f.rule_id, name: f.title, type_id: 1, type: 'Rule' },
      attacks: rule.attack.techniques.map((t) => ({
        technique: { uid: t },
        tactic: { uid: rule.attack.tactic },
      })),
      related_events: f.record_ids.map((uid) => ({ uid })),
    },
    metadata: {
      uid: f.finding_id,
      version: OCSF_VERSION,
      product: { name: 'tunnel-archiver', vendor_name: 'tunnel-archiver' },
    },
    unmapped: {
      entity: f.entity,
      token_hmac: f.token_hmac,
      client_network: f.client_network,
      session_id: f.session_id,
      source: f.source,
    },
  };
}

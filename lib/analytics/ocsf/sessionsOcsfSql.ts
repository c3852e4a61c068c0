import { epochMsSql } from '../sql/dialect.ts';
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
import { LOGGING_PRODUCT, type OcsfProfile, SESSION_EVENT_UID_SQL, SOURCE_PRODUCT } from './ocsfProfile.ts';

const LOGGERS: OcsfType = { array: { row: [leaf('name', 'varchar', ''), productField()] } };

function productField(): OcsfField {
  return row('product', [leaf('name', 'varchar', ''), leaf('vendor_name', 'varchar', '')]);
}

/** The fields of one session event (`e` = the session's latest revision, with `activity_id`). */
export function sessionsOcsfFields(p: OcsfProfile): OcsfField[] {
  const cls = p.sessionClass;
  const is18 = p.version === '1.8.0';
  const activityName = "CASE e.activity_id WHEN 1 THEN 'Open' ELSE 'Close' END";
  const user = row(
    'user',
    [leaf('uid', 'varchar', 'e.user_email'), leaf('email_addr', 'varchar', 'e.user_email')],
    'e.user_email IS NOT NULL',
  );
  const session = row('session', [
    leaf('uid', 'varchar', 'e.session_id'),
    leaf('credential_uid', 'varchar', 'e.token_hmac'),
    leaf('created_time', 'bigint', epochMsSql('e.start_time')),
  ]);
  const eventUid = `CASE e.activity_id WHEN 1 THEN ${SESSION_EVENT_UID_SQL('e.session_id', 'open')} ELSE ${SESSION_EVENT_UID_SQL('e.session_id', 'close')} END`;
  return [
    leaf('activity_id', 'integer', 'e.activity_id'),
    leaf('activity_name', 'varchar', activityName),
    constant('category_uid', 'integer', cls.category_uid),
    constant('category_name', 'varchar', 'Network Activity'),
    constant('class_uid', 'integer', cls.uid),
    constant('class_name', 'varchar', cls.name),
    leaf('type_uid', 'bigint', `${cls.uid * 100} + e.activity_id`),
    leaf('type_name', 'varchar', `'${cls.name}: ' || ${activityName}`),
    constant('severity_id', 'integer', 1),
    constant('severity', 'varchar', 'Informational'),
    leaf('time', 'bigint', epochMsSql('e.event_time')),
    leaf('start_time', 'bigint', epochMsSql('e.start_time')),
    leaf('end_time', 'bigint', epochMsSql('e.end_time')),
    leaf('duration', 'bigint', "date_diff('millisecond', e.start_time, e.end_time)"),
    ...(is18 ? [user, session] : [row('actor', [user, session])]),
    row(
      'src_endpoint',
      [
        leaf('ip', 'varchar', 'e.client_address'),
        leaf('port', 'integer', 'e.client_port'),
        // The address as the API sent it, when it is not an address the archiver could parse.
        leaf('name', 'varchar', "CASE WHEN e.client_address IS NULL THEN nullif(e.client_ip, '') END"),
      ],
      "e.client_address IS NOT NULL OR nullif(e.client_ip, '') IS NOT NULL",
    ),
    row('dst_endpoint', [
      leaf('hostname', 'varchar', 'element_at(e.domains, 1)'),
      leaf('port', 'integer', 'e.port'),
      // The tunnel's mode (http, tcp, tls, ...): the service the public endpoint offers.
      leaf('svc_name', 'varchar', 'e.mode'),
    ]),
    row('connection_info', [
      // The tunnel client connects out to Pinggy, which exposes it: outbound from the client's network.
      constant('direction_id', 'integer', 2),
      constant('direction', 'varchar', 'Outbound'),
      leaf('protocol_name', 'varchar', "CASE WHEN e.mode_udp <> '' THEN 'udp' ELSE 'tcp' END"),
      leaf('protocol_num', 'integer', "CASE WHEN e.mode_udp <> '' THEN 17 ELSE 6 END"),
    ]),
    ...(is18 ? [leaf('app_protocol_name', 'varchar', 'e.mode')] : []),
    leaf('observables', { array: OBSERVABLE }, 'e.observables'),
    row('metadata', [
      leaf('uid', 'varchar', eventUid),
      constant('version', 'varchar', p.version),
      constant('product', productField().type, SOURCE_PRODUCT),
      constant('loggers', LOGGERS, [{ name: LOGGING_PRODUCT.name, product: LOGGING_PRODUCT }]),
      leaf('logged_time', 'bigint', epochMsSql('e.archived_at')),
      leaf('correlation_uid', 'varchar', 'e.session_id'),
      ...(is18 ? [leaf('original_event_uid', 'varchar', 'e.record_id')] : []),
    ]),
  ];
}

/** Every domain of a session, as an OCSF observable of type Hostname (1). */
const OBSERVABLE: OcsfType = {
  row: [
    leaf('name', 'varchar', ''),
    leaf('type_id', 'integer', ''),
    leaf('type', 'varchar', ''),
    leaf('value', 'varchar', ''),
  ],
};

/**
 * History as OCSF session events (Tunnel Activity 4014 at 1.8.0, Network Activity 4001 at 1.1.0):
 * for each session its latest revision (by `archived_at`) gives one Open event at `start_time` and,
 * once the session has ended, one Close event at `end_time`. `metadata.uid` is `<session_id>:open` or
 * `:close`, the same in every revision, so findings link to it. Trino SQL; DuckDB runs it unchanged
 * with the shims of lib/analytics/sql/dialect.ts.
 */
export function sessionsOcsfSql(history: string, p: OcsfProfile): string {
  return `WITH revisions AS (
  SELECT h.*, row_number() OVER (PARTITION BY h.session_id ORDER BY h.archived_at DESC, h.record_id DESC) AS revision_rank
  FROM ${history} h
),
sessions AS (SELECT * FROM revisions WHERE revision_rank = 1),
domain_observables AS (
  SELECT s.session_id,
    array_agg(CAST(ROW('domain', 1, 'Hostname', d.domain) AS ${prestoType(OBSERVABLE)})) AS observables
  FROM sessions s CROSS JOIN UNNEST(array_distinct(s.domains)) AS d(domain)
  GROUP BY s.session_id
),
e AS (
  SELECT s.*, o.observables, a.activity_id,
    CASE a.activity_id WHEN 1 THEN s.start_time ELSE s.end_time END AS event_time
  FROM sessions s
  CROSS JOIN (VALUES (1), (2)) AS a(activity_id)
  LEFT JOIN domain_observables o ON o.session_id = s.session_id
  WHERE a.activity_id = 1 OR s.end_time IS NOT NULL
)
SELECT
${selectList(sessionsOcsfFields(p))}
FROM e`;
}

/** The columns of the sessions view, in order. */
export const sessionsOcsfColumns = (p: OcsfProfile) => viewColumns(sessionsOcsfFields(p));

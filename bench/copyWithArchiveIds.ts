import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../lib/analytics/query/sqlString.ts';
import { tokenHmac } from '../lib/archive/records/tokenHmac.ts';

/**
 * The seed's record fields, read as they were sent: times as text (DuckDB's own detection would guess a
 * type), domains as a list, the port as an integer. Fields the seed does not name are left out.
 */
const CONTENT_TYPE =
  'STRUCT(start_time VARCHAR, end_time VARCHAR, user_email VARCHAR, token_value VARCHAR, ' +
  'virtual_token_value VARCHAR, domains VARCHAR[], mode VARCHAR, mode_udp VARCHAR, client_ip VARCHAR, port BIGINT)[]';

/**
 * The bench's script with the archive's ids: what a user's fetch-then-DuckDB script would have
 * to do to give every row the archive's pinned `record_id` and `session_id` (recordId.ts), done in DuckDB,
 * natively and on every core. Token HMACs are worked out once a distinct token in JavaScript (as the
 * archiver's memo does; DuckDB has no HMAC), the instants are parsed by DuckDB's `TIMESTAMPTZ`, the ids'
 * canonical texts are built with `to_json` and hashed with `sha256`. The rows, with both ids, go to one
 * ZSTD Parquet file at `out`. Where DuckDB parts from the archiver (a domain past U+FFFF sorts by code
 * point, not UTF-16 unit; an instant DuckDB reads another way), the ids differ: the bench checks a sample
 * of them against the archiver's (`scriptChild.ts`) and `test/bench/copyWithArchiveIds.int.test.ts` the
 * spellings the contract allows.
 */
export async function copyWithArchiveIds(
  conn: DuckDBConnection,
  pagesGlob: string,
  out: string,
  tokenKey: Uint8Array,
): Promise<void> {
  await conn.run(JSON_TEXT_MACRO);
  await conn.run(
    `CREATE TEMP TABLE ta_records AS SELECT unnest(content, recursive := true) FROM read_json(${sqlString(pagesGlob)},
       columns = {content: '${CONTENT_TYPE}'}, maximum_object_size = 268435456)`,
  );
  const tokens = await conn.runAndReadAll(
    `SELECT DISTINCT t FROM (SELECT token_value AS t FROM ta_records UNION ALL SELECT virtual_token_value FROM ta_records) WHERE t IS NOT NULL`,
  );
  await conn.run('CREATE TEMP TABLE ta_token_hmacs (t VARCHAR, h VARCHAR)');
  const appender = await conn.createAppender('ta_token_hmacs');
  for (const [t] of tokens.getRows()) {
    appender.appendVarchar(t as string);
    appender.appendVarchar(tokenHmac(tokenKey, t as string));
    appender.endRow();
  }
  appender.closeSync();
  await conn.run(`COPY (${ARCHIVE_IDS_QUERY}) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd)`);
}

/**
 * Epoch ms of an ISO instant; DuckDB's `TIMESTAMPTZ` wants seconds, which the contract lets the upstream
 * leave out (`2026-11-17T20:15Z`), so they are put in first.
 */
const epochMs = (column: string): string =>
  `epoch_ms((CASE WHEN substr(${column}, 17, 1) = ':' THEN ${column} ELSE ` +
  `regexp_replace(${column}, '^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2})', '\\1:00') END)::TIMESTAMPTZ)`;

const nullable = (json: string): string => `coalesce(${json}, 'null')`;

/**
 * `ta_json(text, json)`: `json`, DuckDB's `to_json` of `text`, spelled as `JSON.stringify` spells it. The
 * two differ only in a control character's escape, upper-case hex (`\u001F`) against lower (`\u001f`), so
 * only a text holding one is respelled. (A text holding both a control character and a literal backslash
 * followed by such an escape's letters would be respelled wrongly: the bench's sample check would say so.)
 */
const JSON_TEXT_MACRO = `CREATE TEMP MACRO ta_json(text, json) AS CASE WHEN regexp_matches(text, '[\\x00-\\x1f]') THEN ${[
  ...'ABCDEF',
].reduce(
  (sql, hex) =>
    `replace(replace(${sql}, '\\u000${hex}', '\\u000${hex.toLowerCase()}'), '\\u001${hex}', '\\u001${hex.toLowerCase()}')`,
  'json',
)} ELSE json END`;

/** Both ids and the row's other columns, from `ta_records` and `ta_token_hmacs`. */
const ARCHIVE_IDS_QUERY = `
  WITH n AS (
    SELECT r.*, ${epochMs('start_time')} AS start_ms, ${epochMs('end_time')} AS end_ms,
      th.h AS token_hmac, vth.h AS virtual_token_hmac,
      ta_json(client_ip, to_json(client_ip)::VARCHAR) AS j_ip, ta_json(mode, to_json(mode)::VARCHAR) AS j_mode, ta_json(user_email, to_json(user_email)::VARCHAR) AS j_email,
      ${nullable('to_json(th.h)::VARCHAR')} AS j_th, ${nullable('to_json(vth.h)::VARCHAR')} AS j_vth
    FROM ta_records r
    LEFT JOIN ta_token_hmacs th ON th.t = r.token_value
    LEFT JOIN ta_token_hmacs vth ON vth.t = r.virtual_token_value
  )
  SELECT
    left(sha256('tunnel-archiver/record/v2' || chr(10) || '{"client_ip":' || j_ip ||
      ',"domains":' || ta_json(array_to_string(domains, ''), to_json(CASE WHEN len(domains) < 2 THEN domains ELSE list_sort(list_distinct(domains)) END)::VARCHAR) ||
      ',"end_time":' || ${nullable('end_ms::VARCHAR')} || ',"mode":' || j_mode ||
      ',"mode_udp":' || ta_json(mode_udp, to_json(mode_udp)::VARCHAR) || ',"port":' || ${nullable('port::VARCHAR')} ||
      ',"start_time":' || start_ms::VARCHAR || ',"token_hmac":' || j_th || ',"user_email":' || j_email ||
      ',"virtual_token_hmac":' || j_vth || '}'), 32) AS record_id,
    left(sha256('tunnel-archiver/session/v1' || chr(10) || '{"client_ip":' || j_ip || ',"mode":' || j_mode ||
      ',"start_time":' || start_ms::VARCHAR || ',"token_hmac":' || j_th || ',"user_email":' || j_email ||
      ',"virtual_token_hmac":' || j_vth || '}'), 32) AS session_id,
    make_timestamp(start_ms * 1000) AS start_time, make_timestamp(end_ms * 1000) AS end_time,
    user_email, token_hmac, virtual_token_hmac, domains, mode, mode_udp, client_ip, port
  FROM n`;

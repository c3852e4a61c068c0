import { HISTORY_COLUMN_NAMES } from '../../archive/index.ts';
import { ArchiverError, addDays, type Day } from '../../foundation/index.ts';
import { ACTIVE_TABLE, HISTORY_TABLE } from '../query/activeViews.ts';
import { liveMatchesHistorySql } from '../query/liveMatchesHistorySql.ts';
import { sqlString } from '../query/sqlString.ts';
import { canonicalAddressSql } from './canonicalAddress.ts';
import { cidrPrefixes } from './exemptNetworks.ts';
import type { SettingValue } from './ruleSchema.ts';

export interface RuleWindow {
  /** First day read (the evaluation's lookback and the rule's window before it). */
  since: Day;
  until: Day;
  /** The evaluation's time: a session without an end is open until it. */
  now: Date;
  /** The rule's sliding window in seconds (`{{window_seconds}}`). */
  windowSeconds?: number;
}

const WORD = /^[A-Za-z0-9_./+-]+$/;
const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** An allowlist of domain suffixes as one regular expression (`^(.*\.)?(a\.pinggy\.link|corp\.example)$`). */
export function allowlistRegex(suffixes: readonly string[]): string {
  if (suffixes.length === 0) return '^$';
  const alts = suffixes.map((s) =>
    s
      .toLowerCase()
      .replace(/^\.+/, '')
      .replace(/[.+-]/g, (c) => `\\${c}`),
  );
  return `^(.*\\.)?(${alts.join('|')})$`;
}

const invalid = (name: string, why: string) => new ArchiverError('CONFIG_INVALID', `setting ${name}: ${why}`);

function words(name: string, value: SettingValue): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => {
    const s = String(v);
    if (!WORD.test(s)) throw invalid(name, `'${s}' has characters a setting cannot hold`);
    return s;
  });
}

/** Settings with a rendering of their own; every other one is a number or a word. */
const RENDER: Record<string, (name: string, value: SettingValue) => string> = {
  time_zone: (n, v) => {
    const zone = String(v);
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
    } catch {
      throw invalid(n, `'${zone}' is not an IANA time zone (e.g. Europe/Berlin)`);
    }
    return words(n, zone)[0] ?? '';
  },
  allowlist: (n, v) => allowlistRegex(words(n, v)),
  holidays: (n, v) => {
    const days = words(n, v);
    for (const d of days)
      if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw invalid(n, `'${d}' is not a day, YYYY-MM-DD`);
    return days.length === 0 ? "''" : days.map(sqlString).join(', ');
  },
  workdays: (n, v) => {
    const days = words(n, v).map((d) => WEEKDAYS.indexOf(d.toLowerCase().slice(0, 3)) + 1);
    if (days.some((d) => d === 0)) throw invalid(n, `days are ${WEEKDAYS.join(', ')}`);
    return days.length === 0 ? '0' : days.join(', ');
  },
};

function literal(name: string, value: SettingValue): string {
  const special = RENDER[name];
  if (special) return special(name, value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(name, 'must be a finite number');
    return String(value);
  }
  if (Array.isArray(value)) throw invalid(name, 'takes one value, not a list');
  if (!WORD.test(value)) throw invalid(name, `'${value}' has characters a setting cannot hold`);
  return value;
}

const isWholeAddress = (p: string) =>
  p.includes(':') ? p.length === 39 : p.split('.').length === 4 && !p.endsWith('.');

/** The exemptions of the rule's settings as one SQL condition over `client_canon` and `token_hmac`. */
function exemptions(settings: Readonly<Record<string, SettingValue>>): string {
  const listed = settings.exempt_networks ?? [];
  const nets = (Array.isArray(listed) ? listed : [listed]).map(String).flatMap(cidrPrefixes);
  const tokens = (Array.isArray(settings.exempt_tokens) ? settings.exempt_tokens : []).map(String);
  for (const t of tokens)
    if (!/^[A-Za-z0-9_:+/=-]+$/.test(t)) throw invalid('exempt_tokens', `'${t}' is not a token digest`);
  const conds = [
    ...nets.map((p) =>
      // A whole address is compared as it is (`203.0.113.8` must not take in `203.0.113.80`).
      isWholeAddress(p) ? `client_canon = ${sqlString(p)}` : `client_canon LIKE ${sqlString(`${p}%`)}`,
    ),
    ...(tokens.length > 0 ? [`token_hmac IN (${tokens.map(sqlString).join(', ')})`] : []),
  ];
  return conds.length === 0 ? '' : `\n  WHERE NOT coalesce(${conds.join(' OR ')}, false)`;
}

/** Each history column as an open tunnel of `active/` (`o`) fills it. */
const LIVE_AS_HISTORY: Record<(typeof HISTORY_COLUMN_NAMES)[number], string> = {
  record_id: 'CAST(NULL AS varchar)',
  session_id: 'o.id',
  start_time: 'o.creation_time',
  end_time: 'CAST(NULL AS timestamp)',
  user_email: "CAST('' AS varchar)",
  token_value: 'o.token',
  virtual_token_value: 'o.virtual_token',
  // The token the tunnel was opened with (`join_token_hmac`: the token, or the virtual token less its
  // `-<port>`), so the live row names the token its history row will (rows from before the column: the token).
  token_hmac: 'coalesce(o.join_token_hmac, o.token_hmac)',
  virtual_token_hmac: 'o.virtual_token_hmac',
  domains:
    "CASE WHEN o.customdomain IS NULL OR o.customdomain = '' THEN ARRAY[o.subdomain] ELSE ARRAY[o.subdomain, o.customdomain] END",
  mode: 'o.mode',
  mode_udp: 'o.mode_udp',
  client_ip: "CAST('' AS varchar)",
  client_address: 'CAST(NULL AS varchar)',
  client_port: 'CAST(NULL AS integer)',
  port: 'o.port',
  extra_json: 'o.extra_json',
  archived_at: 'o.observed_at',
  start_time_text: 'CAST(NULL AS varchar)',
  end_time_text: 'CAST(NULL AS varchar)',
};

/**
 * The tunnels `active/` shows open at `{{now}}` that history does not hold yet, as history rows: the last
 * observation of each live `id` (up to now, read from `{{from}}`) that is not `gone`, with `session_id` =
 * the live id (as the live rules name it), no `record_id` and no client address (the active list has
 * neither), `end_time` null (open until now), `token_hmac` its join token. A tunnel history already holds
 * (same start instant, same token: `liveMatchesHistorySql`) is left to history's row.
 */
function openLiveSql(from: string): string {
  const cols = HISTORY_COLUMN_NAMES.map((c) => `${LIVE_AS_HISTORY[c]} AS ${c}`).join(',\n    ');
  return `SELECT ${cols}, o.dt, 1 AS revision_rank
  FROM (
    SELECT a.*, row_number() OVER (PARTITION BY id ORDER BY observed_at DESC, row_id DESC) AS last_rank
    FROM ${ACTIVE_TABLE} a
    WHERE dt >= '{{${from}}}' AND dt <= '{{until}}' AND observed_at <= {{now}}
  ) o
  WHERE o.last_rank = 1 AND o.event <> 'gone'
    AND NOT EXISTS (
      SELECT 1 FROM ${HISTORY_TABLE} h
      WHERE h.dt >= '{{${from}}}' AND h.dt <= '{{until}}' AND h.start_time = o.creation_time
        AND ${liveMatchesHistorySql('o', 'h')}
    )`;
}

/**
 * `{{sessions}}`: every tunnel once: history as sessions (each its latest revision: the last archived row
 * of its `session_id`) and the tunnels still open in `active/` that history does not hold yet (see
 * {@link openLiveSql}), with `client_canon`, `client_network` and `end_at` (the end, or now for a
 * session still open), without the rule's exempted networks and tokens; read from `{{since}}` (or
 * `{{baseline_since}}`: `{{baseline_sessions}}`) to `{{until}}`. The same SQL runs on Athena and DuckDB.
 */
export function sessionsSql(
  settings: Readonly<Record<string, SettingValue>>,
  from: 'since' | 'baseline_since' = 'since',
): string {
  const cols = HISTORY_COLUMN_NAMES.join(', ');
  const latest = `(SELECT ${cols}, dt, revision_rank FROM (
    SELECT r.*, row_number() OVER (PARTITION BY session_id ORDER BY archived_at DESC, record_id DESC) AS revision_rank
    FROM ${HISTORY_TABLE} r WHERE dt >= '{{${from}}}' AND dt <= '{{until}}'
  ) latest WHERE revision_rank = 1
  UNION ALL
  ${openLiveSql(from)})`;
  return `(SELECT c.*, coalesce(end_time, {{now}}) AS end_at FROM (${canonicalAddressSql(latest)}) c${exemptions(settings)})`;
}

/**
 * The rule's SQL with every `{{name}}` replaced: `{{sessions}}` (see {@link sessionsSql}), the window
 * (`since`, `until`, `now`, `window_seconds`, and `baseline_since` = since − `baseline_days`), and the
 * rule's settings as literals (numbers, words, an allowlist as a regex, days as lists). Values are
 * checked, so a setting cannot inject SQL; a placeholder with no value is `CONFIG_INVALID`.
 */
export function renderRuleSql(
  template: string,
  settings: Readonly<Record<string, SettingValue>>,
  window: RuleWindow,
): string {
  const values: Record<string, string> = {
    since: window.since,
    until: window.until,
    now: `CAST(from_iso8601_timestamp('${window.now.toISOString()}') AS timestamp)`,
    window_seconds: String(Math.round(window.windowSeconds ?? 0)),
  };
  for (const [k, v] of Object.entries(settings)) {
    if (k === 'exempt_networks' || k === 'exempt_tokens') continue;
    values[k] = literal(k, v);
  }
  const baseline = settings.baseline_days;
  if (typeof baseline === 'number') values.baseline_since = addDays(window.since, -baseline);
  const fill = (sql: string) =>
    sql.replace(PLACEHOLDER, (_, name: string) => {
      const v = values[name];
      if (v === undefined)
        throw new ArchiverError('CONFIG_INVALID', `the rule's SQL names {{${name}}}, which has no value`);
      return v;
    });
  values.sessions = fill(sessionsSql(settings));
  if (values.baseline_since !== undefined)
    values.baseline_sessions = fill(sessionsSql(settings, 'baseline_since'));
  return fill(template);
}

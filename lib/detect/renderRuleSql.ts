import { addDays, type Day } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { SettingValue } from './ruleSchema.ts';

/**
 * The client network of `client_address`: IPv4 /24 (`198.51.100.0/24`), IPv6 /48 as the first three
 * groups as written (`2001:db8:aa::/48`; an address compressed inside them, `2001:db8::1`, keeps its
 * spelling: an approximation documented in docs/detections.md). One expression for both engines.
 */
export const CLIENT_NETWORK_SQL = `CASE WHEN strpos(client_address, ':') = 0
    THEN regexp_extract(client_address, '^(\\d+\\.\\d+\\.\\d+)\\.', 1) || '.0/24'
    ELSE regexp_extract(lower(client_address), '^([0-9a-f]*:[0-9a-f]*:[0-9a-f]*)', 1) || '::/48' END`;

export interface RuleWindow {
  since: Day;
  until: Day;
}

const WORD = /^[A-Za-z0-9_./+-]+$/;
const PLACEHOLDER = /\{\{(\w+)\}\}/g;

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

function literal(name: string, value: SettingValue): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new ArchiverError('CONFIG_INVALID', `setting ${name} must be a finite number`);
    return String(value);
  }
  if (Array.isArray(value)) {
    for (const v of value) {
      if (!WORD.test(v))
        throw new ArchiverError('CONFIG_INVALID', `setting ${name}: '${v}' is not a domain suffix`);
    }
    return allowlistRegex(value);
  }
  if (!WORD.test(value))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `setting ${name}: '${value}' has characters a setting cannot hold`,
    );
  return value;
}

/**
 * The rule's SQL with every `{{name}}` replaced: the window (`since`, `until`, and `baseline_since`
 * = since − `baseline_days`), the client-network expression, and the rule's settings as literals
 * (numbers, words, allowlists as a regex). Values are checked, so a setting cannot inject SQL; a
 * placeholder with no value is `CONFIG_INVALID`.
 */
export function renderRuleSql(
  template: string,
  settings: Readonly<Record<string, SettingValue>>,
  window: RuleWindow,
): string {
  const values: Record<string, string> = {
    since: window.since,
    until: window.until,
    client_network: CLIENT_NETWORK_SQL,
  };
  for (const [k, v] of Object.entries(settings)) values[k] = literal(k, v);
  const baseline = settings.baseline_days;
  if (typeof baseline === 'number') values.baseline_since = addDays(window.since, -baseline);
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const v = values[name];
    if (v === undefined)
      throw new ArchiverError('CONFIG_INVALID', `the rule's SQL names {{${name}}}, which has no value`);
    return v;
  });
}

import { OCSF_CLASSES, OCSF_FORMATS, SEVERITIES } from '../analytics/index.ts';
import { SETTINGS } from '../archive/index.ts';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** One line for the command's help. */
  help: string;
}

export type FlagSet = Readonly<Record<string, FlagSpec>>;

type SettingFlag = Extract<(typeof SETTINGS)[number], { flag: string }>['flag'];

/** Every setting that has a flag (`--page-size` ...), described from the one config spec. */
const SETTING_FLAGS = Object.fromEntries(
  SETTINGS.filter((s) => 'flag' in s).map((s) => [
    (s as { flag: string }).flag,
    {
      type: 'string' as const,
      help: `${s.env}${s.default === undefined ? '' : ` (default ${s.default})`}`,
    },
  ]),
) as Record<SettingFlag, FlagSpec>;

/** The setting flags a command uses, by name. */
const settings = (...names: SettingFlag[]): FlagSet =>
  Object.fromEntries(names.map((n) => [n, SETTING_FLAGS[n]]));

const help: FlagSet = { help: { type: 'boolean', help: "this command's help" } };
const now: FlagSet = {
  now: { type: 'string', help: 'act as if the time were this ISO 8601 instant (simulation)' },
};
const json: FlagSet = { json: { type: 'boolean', help: 'print the result as JSON on stdout' } };
/** Where the archive is, and the state beside it. */
const store = settings('dest', 'state');
const logs = settings('log-level', 'log-format');

/** `run` and `start`: every setting flag, the days to scan, progress and output. */
const ARCHIVING: FlagSet = {
  ...settings(
    ...(SETTINGS.filter((s) => 'flag' in s).map((s) => (s as { flag: string }).flag) as SettingFlag[]),
  ),
  ...now,
  days: { type: 'string', help: 'scan exactly these days, D1,D2 (YYYY-MM-DD, within the window)' },
  ...json,
  quiet: { type: 'boolean', help: 'no progress output' },
  ...help,
};

/**
 * The flags of every command: the one table the parser, each command's help and the docs test
 * (docs/cli.md, "Flags of each command") read. A command takes only the flags it uses; any other
 * is a usage error (exit 2) before anything is read or created.
 */
export const COMMAND_FLAGS = {
  start: ARCHIVING,
  run: ARCHIVING,
  status: { ...store, ...settings('window-days'), ...logs, ...now, ...json, ...help },
  verify: {
    ...store,
    ...settings('keys-dir', 'base-url', 'page-size', 'window-days'),
    ...logs,
    ...now,
    since: {
      type: 'string',
      help: 'DAY (YYYY-MM-DD): check only digests written and partitions from that day on (quick checks; keep a full one weekly)',
    },
    'expect-head': {
      type: 'string',
      help: 'SEQ:SHA256, the chain head you saw last (run and verify print it): a chain that ends before it is reported truncated',
    },
    ...json,
    ...help,
  },
  report: {
    ...store,
    ...settings('window-days'),
    ...now,
    out: { type: 'string', help: 'FILE to write (default: report.html in the local archive folder)' },
    verify: { type: 'boolean', help: 'add a fresh archive-only check (as `verify` without an API key)' },
    ...json,
    ...help,
  },
  recover: { ...store, ...logs, ...now, ...json, ...help },
  active: { ...settings('base-url', 'window-days'), ...logs, ...now, ...json, ...help },
  repair: {
    ...store,
    ...logs,
    dt: {
      type: 'string',
      help: 'the partition to repair (YYYY-MM-DD), as named by a PARTITION_BROKEN error',
    },
    dataset: { type: 'string', help: 'history (default) or active' },
    apply: {
      type: 'boolean',
      help: 'drop the missing entries (without it, only report what would be dropped)',
    },
    ...json,
    ...help,
  },
  'token-hmac': {
    ...settings('dest', 'keys-dir'),
    'token-key-secret': {
      type: 'string',
      help: "ID (the stack's TokenKeySecretArn): take the token key from Secrets Manager instead of a keys folder",
    },
    table: {
      type: 'string',
      help: 'NAME of the table the query reads (default tunnel_archive.tunnel_sessions)',
    },
    ...json,
    ...help,
  },
  query: {
    ...settings('dest'),
    csv: { type: 'boolean', help: 'print the result as CSV (RFC 4180)' },
    json: { type: 'boolean', help: 'print the result as a JSON array of objects' },
    ...help,
  },
  detect: {
    ...settings('dest'),
    since: {
      type: 'string',
      help: "DAY (YYYY-MM-DD): evaluate from that day on (default: each rule's lookback)",
    },
    rule: { type: 'string', help: 'ID: run only this rule (detections/<ID>.yml)' },
    json: { type: 'boolean', help: 'print the findings as a JSON array' },
    'fail-on': {
      type: 'string',
      help: `SEVERITY (${SEVERITIES.join('|')}): exit 9 when a finding is at or above it`,
    },
    settings: {
      type: 'string',
      help: 'FILE (YAML or JSON): thresholds, allowlists, time zone per deployment',
    },
    test: { type: 'boolean', help: "run every rule's yml tests (in DuckDB, in memory) instead" },
    ...now,
    ...help,
  },
  export: {
    ocsf: { type: 'boolean', help: 'export OCSF events (the one format export writes; required)' },
    class: {
      type: 'string',
      help: `${OCSF_CLASSES.join('|')}: Tunnel Activity 4014, or Detection Finding 2004`,
    },
    since: { type: 'string', help: 'DAY (YYYY-MM-DD): first UTC day of event time (required)' },
    until: { type: 'string', help: 'DAY (YYYY-MM-DD): last UTC day of event time, included (required)' },
    format: { type: 'string', help: `${OCSF_FORMATS.join('|')} (default jsonl)` },
    out: { type: 'string', help: 'DIR to write ocsf-<class>-<since>-<until>.<format> into (required)' },
    ...settings('dest'),
    ...help,
  },
  /** The emulator parses its own flags (`tunnel-archiver emulator --help`). */
  emulator: {},
} as const satisfies Record<string, FlagSet>;

export type CommandName = keyof typeof COMMAND_FLAGS;

/** The commands that take `--name`, for the message that rejects it elsewhere. */
export function commandsTaking(name: string): CommandName[] {
  return (Object.keys(COMMAND_FLAGS) as CommandName[]).filter((c) => name in COMMAND_FLAGS[c]);
}

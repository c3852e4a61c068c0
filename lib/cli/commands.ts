import type { CliIo } from './cliIo.ts';
import { DETECT_FLAGS } from './detectFlags.ts';
import { EXPORT_FLAGS } from './exportFlags.ts';
import { type CliFlags, COMMON_FLAGS, type FlagSet, parseCliFlags } from './parseCliFlags.ts';
import { QUERY_FLAGS } from './queryCommand.ts';
import { REPAIR_FLAGS } from './repairCommand.ts';
import type { CommandHelp } from './usage.ts';

export interface Command extends CommandHelp {
  /** Runs the command on its parsed flags; returns the exit code. Loaded lazily. */
  run(flags: CliFlags, io: CliIo): Promise<number>;
  /** A command that parses its own arguments (and prints its own help), e.g. `emulator`. */
  raw?: (argv: string[], io: CliIo) => Promise<number>;
}

const STATUS_FLAGS: FlagSet = { ...COMMON_FLAGS };
delete STATUS_FLAGS.days;
delete STATUS_FLAGS.quiet;

const VERIFY_FLAGS: FlagSet = {
  ...COMMON_FLAGS,
  since: {
    type: 'string',
    help: 'DAY (YYYY-MM-DD): check only digests written and partitions from that day on (quick checks; keep a full one weekly)',
  },
  'expect-head': {
    type: 'string',
    help: 'SEQ:SHA256, the chain head you saw last (run and verify print it): a chain that ends before it is reported truncated',
  },
};

const REPORT_FLAGS: FlagSet = {
  ...STATUS_FLAGS,
  out: { type: 'string', help: 'FILE to write (default: report.html in the local archive folder)' },
  verify: { type: 'boolean', help: 'add a fresh archive-only check (as `verify` without an API key)' },
};

/**
 * Every command, its help and its flags, in the order the global help lists them. Commands are
 * imported when run, so `--help` and the local commands never load what they do not use.
 */
export const COMMANDS: Record<string, Command> = {
  start: {
    usage: 'start [flags]',
    summary: 'local mode: with no TUNNEL_API_KEY, archive the embedded emulator; with a key, your account',
    details:
      'Archives into ./archive (or --dest), then prints a `tunnel-archiver query` command to try on it.\nA second start adds nothing twice: days are rescanned only when they are due.',
    flags: COMMON_FLAGS,
    run: async (f, io) => (await import('./startCommand.ts')).startCommand(f, io),
  },
  run: {
    usage: 'run [flags]',
    summary: 'one archiving run (the key comes from TUNNEL_API_KEY)',
    details:
      'Prints progress on stderr (a bar on a terminal; --quiet for none) and a summary on stdout (--json for JSON).\nExit 7 when the run finished but some days failed: the summary lists them and the next run retries them.',
    flags: COMMON_FLAGS,
    run: async (f, io) => (await import('./runCommand.ts')).runCommand(f, io),
  },
  status: {
    usage: 'status [flags]',
    summary: 'per-day table of the archive: scanned ages, sealed, records, at risk (reads only)',
    flags: STATUS_FLAGS,
    run: async (f, io) => (await import('./statusCommand.ts')).statusCommand(f, io),
  },
  verify: {
    usage: 'verify [flags]',
    summary:
      'check the archive on its own (digest chain, signatures, files, no doubles); with TUNNEL_API_KEY also against the API; exit 5 on a failure',
    flags: VERIFY_FLAGS,
    run: async (f, io) => (await import('./verifyCommand.ts')).verifyCommand(f, io),
  },
  report: {
    usage: 'report [--out FILE] [--verify] [flags]',
    summary: 'one self-contained HTML page of the archive: coverage calendar, activity, health, integrity',
    details:
      'Reads only; works without the state (the digests suffice). The page loads nothing from elsewhere.',
    flags: REPORT_FLAGS,
    run: async (f, io) => (await import('./reportCommand.ts')).reportCommand(f, io),
  },
  recover: {
    usage: 'recover [flags]',
    summary: 'rebuild the state from the archive (its digests and files) and report what was rebuilt',
    flags: STATUS_FLAGS,
    run: async (f, io) => (await import('./recoverCommand.ts')).recoverCommand(f, io),
  },
  active: {
    usage: 'active [--json] [flags]',
    summary: 'the tunnels open now (one request); LONG = open longer than history can show',
    flags: STATUS_FLAGS,
    run: async (f, io) => (await import('./activeCommand.ts')).activeCommand(f, io),
  },
  repair: {
    usage: 'repair --dt DAY [--apply] [flags]',
    summary:
      'unblock a partition whose manifest lists a missing file (PARTITION_BROKEN); a dry run without --apply',
    flags: REPAIR_FLAGS,
    run: async (f, io) => (await import('./repairCommand.ts')).repairCommand(f, io),
  },
  query: {
    usage: 'query "<SQL>" [--csv|--json] [--dest DIR]',
    summary: 'SQL (DuckDB) over the local archive, with the Athena table names (tunnel_sessions, ...)',
    details:
      'Views: tunnel_sessions over history/dt=*/*.parquet, and tunnel_active_sessions over active/ once it exists.\nPrints a table, or CSV (--csv) or a JSON array (--json). Reads only.',
    flags: QUERY_FLAGS,
    run: async (f, io) => (await import('./queryCommand.ts')).queryCommand(f, io),
  },
  detect: {
    usage: 'detect [--since DAY] [--rule ID] [--json] [--fail-on SEVERITY] [--test]',
    summary: 'run the detection rules (detections/) over the local archive and print the findings',
    details:
      'Findings are stored under findings/dt=…/ and listed in the digest chain; "new" marks the ones this run claimed.\nExit 0 with or without findings; --fail-on SEVERITY exits 9 when one is at or above it. --test runs the rules\' yml tests.',
    flags: DETECT_FLAGS,
    run: async (f, io) => (await import('./detectCommand.ts')).detectCommand(f, io),
  },
  export: {
    usage:
      'export --ocsf --class sessions|findings --since DAY --until DAY --out DIR [--format parquet|jsonl]',
    summary: 'the archive as OCSF events (sessions: Tunnel Activity 4014, findings: Detection Finding 2004)',
    details:
      'OCSF 1.8.0, the mapping of the Athena views tunnel_sessions_ocsf and tunnel_findings_ocsf, sorted by time.\nReads the archive only (a folder or s3://, --archive); writes one file under --out.',
    flags: EXPORT_FLAGS,
    run: async (f, io) => (await import('./exportCommand.ts')).exportCommand(f, io),
  },
  emulator: {
    usage: 'emulator [--port N] [...]',
    summary: 'serve the upstream API emulator (see its --help)',
    flags: {},
    run: async () => 0,
    raw: async (argv, io) => (await import('./emulatorCommand.ts')).runEmulatorCommand(argv, io),
  },
};

/** Parses `argv` with the command's own flag set (unknown flags are named in the error). */
export function parseCommandFlags(name: string, command: Command, argv: string[]): CliFlags {
  return parseCliFlags(argv, command.flags, name);
}

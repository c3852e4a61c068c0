import type { CliIo } from './cliIo.ts';
import { COMMAND_FLAGS, type CommandName } from './commandFlags.ts';
import { type CliFlags, parseCliFlags } from './parseCliFlags.ts';
import type { CommandHelp } from './usage.ts';

export interface Command extends CommandHelp {
  /** Runs the command on its parsed flags; returns the exit code. Loaded lazily. */
  run(flags: CliFlags, io: CliIo): Promise<number>;
  /** A command that parses its own arguments (and prints its own help), e.g. `emulator`. */
  raw?: (argv: string[], io: CliIo) => Promise<number>;
  /**
   * It only reads the archive (`--dest`): an `s3://` archive needs no state table then, and read-only
   * credentials suffice (an auditor's). Its config is parsed with `readsOnly`; a test runs each such
   * command on an S3 archive behind a front that refuses every write.
   */
  readsOnly?: true;
}

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
    flags: COMMAND_FLAGS.start,
    run: async (f, io) => (await import('./startCommand.ts')).startCommand(f, io),
  },
  run: {
    usage: 'run [flags]',
    summary: 'one archiving run (the key comes from TUNNEL_API_KEY)',
    details:
      'Prints progress on stderr (a bar on a terminal; --quiet for none) and a summary on stdout (--json for JSON).\nExit 7 when the run finished but some days failed: the summary lists them and the next run retries them.',
    flags: COMMAND_FLAGS.run,
    run: async (f, io) => (await import('./runCommand.ts')).runCommand(f, io),
  },
  status: {
    usage: 'status [flags]',
    summary: 'per-day table of the archive: scanned ages, sealed, records, at risk (reads only)',
    flags: COMMAND_FLAGS.status,
    readsOnly: true,
    run: async (f, io) => (await import('./statusCommand.ts')).statusCommand(f, io),
  },
  verify: {
    usage: 'verify [flags]',
    summary:
      'check the archive on its own (digest chain, signatures, files, no doubles); with TUNNEL_API_KEY also against the API; exit 5 on a failure',
    flags: COMMAND_FLAGS.verify,
    readsOnly: true,
    run: async (f, io) => (await import('./verifyCommand.ts')).verifyCommand(f, io),
  },
  report: {
    usage: 'report [--out FILE] [--verify] [flags]',
    summary: 'one self-contained HTML page of the archive: coverage calendar, activity, health, integrity',
    details:
      'Reads only; works without the state (the digests suffice). The page loads nothing from elsewhere.',
    flags: COMMAND_FLAGS.report,
    readsOnly: true,
    run: async (f, io) => (await import('./reportCommand.ts')).reportCommand(f, io),
  },
  recover: {
    usage: 'recover [flags]',
    summary:
      'rebuild the partition manifests from the archive (its digests and files) and report what was rebuilt',
    flags: COMMAND_FLAGS.recover,
    run: async (f, io) => (await import('./recoverCommand.ts')).recoverCommand(f, io),
  },
  active: {
    usage: 'active [--json] [flags]',
    summary: 'the tunnels open now (one request); LONG = open longer than history can show',
    flags: COMMAND_FLAGS.active,
    readsOnly: true,
    run: async (f, io) => (await import('./activeCommand.ts')).activeCommand(f, io),
  },
  repair: {
    usage: 'repair --dt DAY [--apply] [flags]',
    summary:
      'unblock a partition whose manifest lists a missing file (PARTITION_BROKEN); a dry run without --apply',
    flags: COMMAND_FLAGS.repair,
    run: async (f, io) => (await import('./repairCommand.ts')).repairCommand(f, io),
  },
  'token-hmac': {
    usage: 'token-hmac [--dest DIR | --keys-dir DIR | --token-key-secret ID] [--table NAME] [--json]',
    summary: "a token's digest under the archive's key, and the Athena query by that digest alone",
    details:
      "Reads the token from stdin (a prompt with echo off on a terminal), never from the command line.\nThe key: the local archive's keys folder, or the stack's token-key secret (--token-key-secret TokenKeySecretArn).\nThe query holds only the digest, so Athena's history and CloudTrail never see the token or the key.",
    flags: COMMAND_FLAGS['token-hmac'],
    run: async (f, io) => (await import('./tokenHmacCommand.ts')).tokenHmacCommand(f, io),
  },
  query: {
    usage: 'query "<SQL>" [--csv|--json] [--dest DIR]',
    summary: 'SQL (DuckDB) over the local archive, with the Athena table names (tunnel_sessions, ...)',
    details:
      'Views: tunnel_sessions over history/dt=*/*.parquet, and tunnel_active_sessions over active/ once it exists.\nPrints a table, or CSV (--csv) or a JSON array (--json). Reads only.',
    flags: COMMAND_FLAGS.query,
    readsOnly: true,
    run: async (f, io) => (await import('./queryCommand.ts')).queryCommand(f, io),
  },
  detect: {
    usage: 'detect [--since DAY] [--rule ID] [--json] [--fail-on SEVERITY] [--test]',
    summary: 'run the detection rules (detections/) over the local archive and print the findings',
    details:
      'Findings are stored under findings/dt=…/ and listed in the digest chain; "new" marks the ones this run claimed.\nExit 0 with or without findings; --fail-on SEVERITY exits 9 when one is at or above it. --test runs the rules\' yml tests.',
    flags: COMMAND_FLAGS.detect,
    run: async (f, io) => (await import('./detectCommand.ts')).detectCommand(f, io),
  },
  export: {
    usage:
      'export --ocsf --class sessions|findings --since DAY --until DAY --out DIR [--format parquet|jsonl]',
    summary: 'the archive as OCSF events (sessions: Tunnel Activity 4014, findings: Detection Finding 2004)',
    details:
      'OCSF 1.8.0, the mapping of the Athena views tunnel_sessions_ocsf and tunnel_findings_ocsf, sorted by time.\nReads the archive only (a folder or s3://, --dest); writes one file under --out.',
    flags: COMMAND_FLAGS.export,
    readsOnly: true,
    run: async (f, io) => (await import('./exportCommand.ts')).exportCommand(f, io),
  },
  emulator: {
    usage: 'emulator [--port N] [...]',
    summary: 'serve the upstream API emulator (see its --help)',
    flags: COMMAND_FLAGS.emulator,
    run: async () => 0,
    raw: async (argv, io) => (await import('./emulatorCommand.ts')).runEmulatorCommand(argv, io),
  },
} satisfies Record<CommandName, Command>;

/** Parses `argv` with the command's own flag set (unknown flags are named in the error). */
export function parseCommandFlags(name: string, command: Command, argv: string[]): CliFlags {
  return parseCliFlags(argv, command.flags, name);
}

import { readFileSync } from 'node:fs';
import { ArchiverError } from '../foundation/index.ts';
import { type CliIo, processIo } from './cliIo.ts';
import { COMMANDS, parseCommandFlags } from './commands.ts';
import { exitCodeFor } from './exitCodes.ts';
import { commandHelp, globalUsage } from './usage.ts';

/** The version in package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

const wantsHelp = (argv: string[]): boolean => argv.some((a) => a === '--help' || a === '-h');

/**
 * CLI entry: returns the process exit code; errors become one actionable line on stderr.
 * `--help`, `help <command>` and `--version` print and return before anything else runs: no
 * config is read, and no file, folder, state or connection is touched.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === '--version' || first === '-v' || first === 'version') {
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    if (first === undefined || first === '--help' || first === '-h') {
      io.stdout.write(globalUsage(COMMANDS));
      return 0;
    }
    if (first === 'help') {
      const [topic] = rest;
      if (topic === undefined) {
        io.stdout.write(globalUsage(COMMANDS));
        return 0;
      }
      return printHelp(topic, io);
    }
    const command = COMMANDS[first];
    if (command === undefined) {
      io.stderr.write(
        `error [CONFIG_INVALID]: unknown command '${first}'; commands: ${Object.keys(COMMANDS).join(', ')} (see tunnel-archiver --help)\n`,
      );
      return 2;
    }
    if (command.raw) return await command.raw(rest, io);
    if (wantsHelp(rest)) return printHelp(first, io);
    return await command.run(parseCommandFlags(first, command, rest), io);
  } catch (error) {
    if (error instanceof ArchiverError) {
      io.stderr.write(`error [${error.code}]: ${error.message}\n`);
      return exitCodeFor(error.code);
    }
    io.stderr.write(
      `error [INTERNAL]: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

async function printHelp(topic: string, io: CliIo): Promise<number> {
  const command = COMMANDS[topic];
  if (command === undefined) {
    io.stderr.write(
      `error [CONFIG_INVALID]: no help for '${topic}': not a command; commands: ${Object.keys(COMMANDS).join(', ')}\n`,
    );
    return 2;
  }
  if (command.raw) return command.raw(['--help'], io);
  io.stdout.write(commandHelp(topic, command));
  return 0;
}

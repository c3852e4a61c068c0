import { ArchiverError } from '../errors/archiverError.ts';
import { type CliIo, processIo } from './cliIo.ts';
import { exitCodeFor } from './exitCodes.ts';
import { parseCliFlags } from './parseCliFlags.ts';
import { executeRun, runContext } from './runCommand.ts';
import { startCommand } from './startCommand.ts';
import { statusCommand } from './statusCommand.ts';
import { USAGE } from './usage.ts';
import { verifyCommand } from './verifyCommand.ts';

/** CLI entry: returns the process exit code; errors become one actionable line on stderr. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(USAGE);
        return 0;
      case 'emulator': {
        const { runEmulatorCommand } = await import('./emulatorCommand.ts');
        return await runEmulatorCommand(rest, io);
      }
      case 'run': {
        const flags = parseCliFlags(rest);
        if (flags.values.help) return help(io);
        await executeRun(runContext(flags, io), io, flags.values.json === true);
        return 0;
      }
      case 'start':
        return await startCommand(parseCliFlags(rest), io);
      case 'status':
        return await statusCommand(parseCliFlags(rest), io);
      case 'verify':
        return await verifyCommand(parseCliFlags(rest), io);
      case 'recover':
        return await (await import('./recoverCommand.ts')).recoverCommand(parseCliFlags(rest), io);
      default:
        io.stderr.write(`error [CONFIG_INVALID]: unknown command '${command}'; see tunnel-archiver --help\n`);
        return 2;
    }
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

function help(io: CliIo): number {
  io.stdout.write(USAGE);
  return 0;
}

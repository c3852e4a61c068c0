import { loadConfig, rebuildStateFromArchive } from '../archive/index.ts';
import { offsetClock, systemClock } from '../foundation/index.ts';
import { buildStores } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, stderrLines } from './cliLog.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';

/**
 * `tunnel-archiver recover`: rebuilds the state's partition manifests from the archive (digests and
 * `history/` listing) and reports what it added. Safe to repeat; it never removes anything.
 */
export async function recoverCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const config = loadConfig({ flags: flags.values, env: io.env });
  const now = parseNow(flags.values.now);
  const clock = now ? offsetClock(now) : systemClock;
  const logger = cliLogger(stderrLines(io), config.logLevel, resolveLogFormat(config.logFormat, io));
  const stores = await buildStores(config, logger, { createStateTable: true });
  try {
    const result = await rebuildStateFromArchive({
      objects: stores.objects,
      state: stores.state,
      logger,
      clock,
    });
    if (flags.values.json) {
      io.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    }
    const lines =
      result.files === 0
        ? ['recover: the state already lists every file of the archive; nothing rebuilt']
        : [
            `recover: rebuilt ${result.partitions.length} partition(s), ${result.files} file(s), ${result.rows} row(s) from the archive` +
              (result.undigested > 0 ? ` (${result.undigested} file(s) not yet in a digest)` : ''),
            ...result.partitions.map((p) => `  dt=${p.dt}  +${p.files.length} file(s)  ${p.rows} row(s)`),
          ];
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await stores.close();
  }
}

import { activeTable, formatActiveTable } from '../archive/index.ts';
import { terminalJson } from '../foundation/index.ts';
import { buildApi } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import type { CliFlags } from './parseCliFlags.ts';
import { apiContext } from './runCommand.ts';

/**
 * `tunnel-archiver active [--json]`: the live tunnels now (one request), oldest first, long sessions
 * flagged. Read-only: it writes no rows and no state (snapshots do that).
 */
export async function activeCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const { config, clock, logger, apiKey } = apiContext(flags, io, { readsOnly: true });
  const api = buildApi(config, apiKey, clock, logger);
  try {
    const now = clock.now();
    const rows = activeTable(await api.listActive(), now, config.windowDays);
    io.stdout.write(
      flags.values.json
        ? `${terminalJson({ now: now.toISOString(), windowDays: config.windowDays, sessions: rows })}\n`
        : formatActiveTable(rows),
    );
    return 0;
  } finally {
    await api.close();
  }
}

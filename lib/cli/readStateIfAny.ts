import { existsSync } from 'node:fs';
import type { Config } from '../archive/index.ts';
import { silentLogger } from '../foundation/index.ts';
import { readStatusInputs, type StatusInputs } from '../integrity/index.ts';
import { buildStores, localDestDir, localStateDirOf } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';

/**
 * The state's reads, when a state exists (`--state`, or the local state folder; never created here).
 * A state that cannot be read (in use by a run, unreachable) is skipped with a note: the calendar then
 * comes from the digests alone.
 */
export async function readStateIfAny(
  config: Config,
  io: CliIo,
  without: string,
): Promise<StatusInputs | undefined> {
  const dir = localDestDir(config.dest);
  if (!config.state && (dir === undefined || !existsSync(localStateDirOf(dir)))) return undefined;
  try {
    const stores = await buildStores(config, silentLogger);
    try {
      return await readStatusInputs(stores.state);
    } finally {
      await stores.close();
    }
  } catch (error) {
    io.stderr.write(`The state cannot be read (${(error as Error).message}): ${without}\n`);
    return undefined;
  }
}

// How a CLI entry of this project starts (bin/tunnel-archiver.js, devkit/crashPointCli.js): with the CLI's
// Node flags (bin/nodeFlags.js), starting Node again to get them (bin/respawn.js), then the TypeScript
// entry bundled by bin/importTs.js, loaded only in the process that runs it.
import { fileURLToPath } from 'node:url';
import { nodeFlagsToAdd } from './nodeFlags.js';
import { respawn, stopWithParent } from './respawn.js';

/**
 * Runs the export `name` of the TypeScript module at `entry` with the command line's arguments, its result
 * the exit code, in a process with the CLI's Node flags: when they are missing, the script at `script` (the
 * caller's `import.meta.url`) is started again with them instead.
 */
export async function startCli(script, entry, name) {
  const flags = nodeFlagsToAdd(process);
  if (flags.length > 0) {
    respawn(fileURLToPath(script), flags);
    return;
  }
  stopWithParent();
  const { importTs } = await import('./importTs.js');
  const module = await importTs(fileURLToPath(entry));
  process.exitCode = await module[name](process.argv.slice(2));
}

#!/usr/bin/env node
// The CLI with crash points, for recovery tests: `node devkit/crashPointCli.js <PHASE:N> <command> [flags]`
// starts as bin/tunnel-archiver.js does (the CLI's Node flags, the TypeScript bundled by bin/importTs.js)
// and runs devkit/crashPointMain.ts, which hands the CLI's main a hook over the run's ports.
import { fileURLToPath } from 'node:url';
import { nodeFlagsToAdd } from '../bin/nodeFlags.js';
import { respawn, stopWithParent } from '../bin/respawn.js';

const flags = nodeFlagsToAdd(process);
if (flags.length > 0) {
  respawn(fileURLToPath(import.meta.url), flags);
} else {
  stopWithParent();
  const { importTs } = await import('../bin/importTs.js');
  const { crashPointMain } = await importTs(fileURLToPath(new URL('./crashPointMain.ts', import.meta.url)));
  process.exitCode = await crashPointMain(process.argv.slice(2));
}

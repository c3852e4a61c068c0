#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step): bin/importTs.js bundles it with esbuild on first use
// (and again whenever a source file changes), and the bundle is cached under node_modules/.cache.
// On Node 22 and later, a process started without the CLI's Node flags (bin/nodeFlags.js) starts itself
// again with them (bin/respawn.js): a plain `#!/usr/bin/env node` works with every `env`, where
// `env -S` fails on Alpine and the BSDs. `npm start` passes the flags itself.
import { fileURLToPath } from 'node:url';
import { nodeFlagsToAdd } from './nodeFlags.js';
import { respawn, stopWithParent } from './respawn.js';

const flags = nodeFlagsToAdd(process);
if (flags.length > 0) {
  respawn(fileURLToPath(import.meta.url), flags);
} else {
  stopWithParent();
  const { importTs } = await import('./importTs.js');
  const { main } = await importTs(fileURLToPath(new URL('../lib/cli/main.ts', import.meta.url)));
  process.exitCode = await main(process.argv.slice(2));
}

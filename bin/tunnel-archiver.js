#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step): bin/importTs.js bundles it with esbuild on first use
// (and again whenever a source file changes), and the bundle is cached under node_modules/.cache.
// On Node 22 and later, a process started without the CLI's Node flags (bin/nodeFlags.js) starts itself
// again with them (bin/respawn.js): a plain `#!/usr/bin/env node` works with every `env`, where
// `env -S` fails on Alpine and the BSDs. `npm start` passes the flags itself. bin/startCli.js does both.
import { startCli } from './startCli.js';

await startCli(import.meta.url, new URL('../lib/cli/main.ts', import.meta.url), 'main');

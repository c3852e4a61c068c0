#!/usr/bin/env -S node --max-semi-space-size=16
// Runs the TypeScript CLI directly (no build step): bin/importTs.js bundles it with esbuild on first use
// (and again whenever a source file changes), and the bundle is cached under node_modules/.cache.
// The shebang's flag gives the main thread the young generation Node 20 has (16 MiB a semi-space): from
// Node 22, V8 sizes it up to 64 MiB, and a million-record day then peaked near 350 MiB RSS instead of
// 270–295 (bench/PROFILE.md). `npm start` passes the same flags (test/bin/cliNodeFlags.int.test.ts).
import { fileURLToPath } from 'node:url';
import { importTs } from './importTs.js';

const { main } = await importTs(fileURLToPath(new URL('../lib/cli/main.ts', import.meta.url)));
process.exitCode = await main(process.argv.slice(2));

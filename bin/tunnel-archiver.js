#!/usr/bin/env -S node --max-semi-space-size=8
// Runs the TypeScript CLI directly (no build step): bin/importTs.js bundles it with esbuild on first use
// (and again whenever a source file changes), and the bundle is cached under node_modules/.cache.
// The shebang's flag bounds the main thread's young generation to 8 MiB a semi-space. From Node 22, V8
// sizes it up to 64 MiB (Node 20: 16), and a million-record day then peaked near 350 MiB RSS; with the
// flag, 243–252 MiB on Node 24 and 193–200 on Node 20 (bench/PROFILE.md). `npm start` passes the same
// flags (test/bin/cliNodeFlags.int.test.ts).
import { fileURLToPath } from 'node:url';
import { importTs } from './importTs.js';

const { main } = await importTs(fileURLToPath(new URL('../lib/cli/main.ts', import.meta.url)));
process.exitCode = await main(process.argv.slice(2));

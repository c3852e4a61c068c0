#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step): bin/importTs.js bundles it with esbuild on first use
// (and again whenever a source file changes), and the bundle is cached under node_modules/.cache.
import { fileURLToPath } from 'node:url';
import { importTs } from './importTs.js';

const { main } = await importTs(fileURLToPath(new URL('../lib/cli/main.ts', import.meta.url)));
process.exitCode = await main(process.argv.slice(2));

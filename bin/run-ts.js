#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, helper child processes) as an esbuild bundle (bin/importTs.js).
import { importTs } from './importTs.js';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0] ?? 'node', file, ...rest];
await importTs(file);

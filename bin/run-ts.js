#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, helper child processes) through tsx's ESM loader.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0] ?? 'node', file, ...rest];
await import(pathToFileURL(resolve(file)).href);

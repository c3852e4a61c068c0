#!/usr/bin/env node
// The CLI with crash points, for recovery tests: `node devkit/crashPointCli.js <PHASE:N> <command> [flags]`
// starts as bin/tunnel-archiver.js does (bin/startCli.js: the CLI's Node flags, the TypeScript bundled by
// bin/importTs.js) and runs devkit/crashPointMain.ts, which hands the CLI's main a hook over the run's ports.
import { startCli } from '../bin/startCli.js';

await startCli(import.meta.url, new URL('./crashPointMain.ts', import.meta.url), 'crashPointMain');

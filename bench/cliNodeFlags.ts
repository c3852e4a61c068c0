import { readFileSync } from 'node:fs';
import { CLI } from '../test/support/runCli.ts';

/**
 * The Node flags of the CLI (`bin/tunnel-archiver.js`), as its shebang (`#!/usr/bin/env -S node <flags>`) gives them: the bench runs
 * the archiver with them where the CLI would (Node 24 cases), and `npm start` must pass the same ones.
 */
export function cliNodeFlags(): string[] {
  const shebang = readFileSync(CLI, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S node((?: --[a-z0-9-]+(?:=\S+)?)*)$/.exec(shebang);
  if (!match) throw new Error(`unexpected shebang in ${CLI}: ${shebang}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

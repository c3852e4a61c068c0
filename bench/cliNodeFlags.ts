import { execFileSync } from 'node:child_process';
import { nodeFlagsToAdd } from '../bin/nodeFlags.js';

const versions = new Map<string, string>();

/**
 * The Node flags the CLI (`bin/tunnel-archiver.js`) runs with under the Node at `node`: what it would start
 * itself again with when started bare (`bin/nodeFlags.js`). The bench runs the archiver's children with them,
 * so that each runs as the CLI would under that Node.
 */
export function cliNodeFlags(node: string = process.execPath): string[] {
  let version = versions.get(node);
  if (version === undefined) {
    version =
      node === process.execPath
        ? process.version
        : execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    versions.set(node, version);
  }
  return nodeFlagsToAdd({ execArgv: [], env: {}, version });
}

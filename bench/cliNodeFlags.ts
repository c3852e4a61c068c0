import { nodeFlagsToAdd } from '../bin/nodeFlags.js';
import { nodeVersion } from './nodeVersion.ts';

/**
 * The Node flags the CLI (`bin/tunnel-archiver.js`) runs with under the Node at `node`: what it would start
 * itself again with when started bare (`bin/nodeFlags.js`). The bench runs the archiver's children with them,
 * so that each runs as the CLI would under that Node.
 */
export function cliNodeFlags(node: string = process.execPath): string[] {
  return nodeFlagsToAdd({ execArgv: [], env: {}, version: nodeVersion(node) });
}

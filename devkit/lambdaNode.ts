import { fileURLToPath } from 'node:url';

/**
 * The Lambda's Node (24), installed apart in tools/lambda-node so that it never lands on npm's PATH.
 * `LAMBDA_NODE_BIN` points at another binary of the same major (a CI cache, for example).
 */
export const LAMBDA_NODE =
  process.env.LAMBDA_NODE_BIN ??
  fileURLToPath(new URL('../tools/lambda-node/node_modules/.bin/node', import.meta.url));

/** bin/run-ts.js: runs a TypeScript file (bundled by esbuild) under whichever Node starts it. */
export const RUN_TS = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

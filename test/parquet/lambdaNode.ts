import { fileURLToPath } from 'node:url';

/** The Lambda's Node (24), installed apart in tools/lambda-node so that it never lands on npm's PATH. */
export const LAMBDA_NODE = fileURLToPath(
  new URL('../../tools/lambda-node/node_modules/.bin/node', import.meta.url),
);

/** bin/run-ts.js: runs a TypeScript file through tsx under whichever Node starts it. */
export const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));

/**
 * The Node flags Lambda's managed Node.js runtime starts a function with, from its memory: the runtime's
 * bootstrap (aws-lambda-base-images, `nodejs*` runtimes) gives the young generation a tenth of the memory
 * (`--max-semi-space-size` half of it), the old generation the rest, exposes `gc` and raises the HTTP
 * header limit. The bench starts a run "as the Lambda runs" with these (`bigDayRuntime`), so that its
 * garbage collection is the function's, not the CLI's (`--max-semi-space-size=4`, bin/nodeFlags.js).
 */
export function lambdaNodeFlags(memoryMb: number): string[] {
  if (!Number.isInteger(memoryMb) || memoryMb < 128) throw new Error(`not a Lambda memory size: ${memoryMb}`);
  const newSpace = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size=81920',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

/**
 * The command Lambda runs to start a function's Node with `nodeArgs`: the Node itself, or, when the function
 * names an exec wrapper (`AWS_LAMBDA_EXEC_WRAPPER`; here a local copy of that script), the wrapper given the
 * Node's path and every argument (Lambda's "wrapper scripts": the interpreter and the original arguments).
 */
export function lambdaCommand(
  node: string,
  nodeArgs: readonly string[],
  execWrapper?: string,
): [command: string, args: string[]] {
  return execWrapper ? [execWrapper, [node, ...nodeArgs]] : [node, [...nodeArgs]];
}

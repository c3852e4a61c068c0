import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs one of the bench's children (`bench/archiverChild.ts`, `bench/scriptChild.ts`, ...) from the repository's
 * root with `args` as its JSON argument, at the profiling datasets' 2000 rows a page, `env` over this process's
 * own, and Node's `nodeFlags` (such as `--trace-gc-nvp`); gives the JSON line it prints last, and all it printed.
 */
export async function benchChildRun<T>(
  file: string,
  args: object,
  env: Record<string, string> = {},
  nodeFlags: readonly string[] = [],
): Promise<{ result: T; stdout: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeFlags, 'bin/run-ts.js', file, JSON.stringify(args)],
    {
      cwd: root,
      maxBuffer: 1 << 28,
      env: { ...process.env, PAGE_SIZE: '2000', ...env },
    },
  );
  return { result: JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as T, stdout };
}

/** {@link benchChildRun}'s last JSON line alone. */
export async function benchChild<T>(
  file: string,
  args: object,
  env: Record<string, string> = {},
): Promise<T> {
  return (await benchChildRun<T>(file, args, env)).result;
}

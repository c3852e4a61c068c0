import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs one of the bench's children (`bench/archiverChild.ts`, `bench/scriptChild.ts`, ...) from the repository's
 * root with `args` as its JSON argument, at the profiling datasets' 2000 rows a page, `env` over this process's
 * own; gives the JSON line it prints last.
 */
export async function benchChild<T>(
  file: string,
  args: object,
  env: Record<string, string> = {},
): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/run-ts.js', file, JSON.stringify(args)],
    {
      cwd: root,
      maxBuffer: 1 << 24,
      env: { ...process.env, PAGE_SIZE: '2000', ...env },
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as T;
}

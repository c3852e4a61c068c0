import type { ChildProcess } from 'node:child_process';

export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What a child process wrote to its piped stdout and stderr, and its exit code: settles once it has exited
 * and both have closed; `output()` gives what they carried so far. Call it before the child can write, so
 * nothing is missed.
 */
export function childOutput(
  child: ChildProcess,
): Promise<ChildOutput> & { output: () => { stdout: string; stderr: string } } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise<ChildOutput>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(done, { output: () => ({ stdout, stderr }) });
}

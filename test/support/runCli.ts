import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/tunnel-archiver.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI in a child Node process (as a user would: `node bin/tunnel-archiver.js`, under `node`,
 * by default the tests' own), optionally SIGKILLing it after `killAfterMs`, optionally in a process group of
 * its own (`detached`). It settles when the process has
 * exited and its stdout and stderr have closed; `output()` gives what they carried so far.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  opts: { killAfterMs?: number; node?: string; detached?: boolean } = {},
): Promise<CliResult> & { child: ChildProcess; output: () => { stdout: string; stderr: string } } {
  const child = spawn(opts.node ?? process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so a test can signal the group as a terminal's Ctrl-C does.
    detached: opts.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const timer =
    opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(done, { child, output: () => ({ stdout, stderr }) });
}

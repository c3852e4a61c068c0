import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childOutput } from '../../devkit/childOutput.ts';
import { ignoreClosedPipe } from '../../devkit/ignoreClosedPipe.ts';
import { CLI } from '../../devkit/runCli.ts';

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The programs a reader's PATH holds that a test must not reach the world with: `aws`, `cdk` and `npm`
 * record their arguments (one a line, in `<log>/<program>.argv`) and do nothing; `tunnel-archiver` and
 * `npx tunnel-archiver` are this checkout's CLI, run by this Node; `npx cdk` is the recording `cdk`.
 * Returns the folder to put first on PATH.
 */
export function shimPrograms(dir: string, log: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  mkdirSync(log, { recursive: true });
  const record = (program: string) =>
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${join(log, `${program}.argv`)}"\n`;
  const cli = `exec "${process.execPath}" "${CLI}" "$@"`;
  const files: Record<string, string> = {
    aws: record('aws'),
    cdk: record('cdk'),
    npm: record('npm'),
    'tunnel-archiver': `#!/bin/sh\n${cli}\n`,
    npx: `#!/bin/sh\ncase "$1" in\n  tunnel-archiver) shift; ${cli} ;;\n  cdk) shift; exec "${bin}/cdk" "$@" ;;\n  *) echo "npx $1: no such program here" >&2; exit 127 ;;\nesac\n`,
  };
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(join(bin, name), body);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/**
 * Runs `command` in bash as a reader pastes it, in `cwd`, with exactly `env`; `input` goes to stdin.
 * Asynchronous, so the local servers of this process keep answering while it runs.
 */
export function paste(
  command: string,
  opts: { cwd: string; env: Record<string, string>; input?: string },
): Promise<ShellResult> {
  const child = spawn('bash', ['-c', command], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = childOutput(child);
  ignoreClosedPipe(child.stdin);
  child.stdin.end(opts.input ?? '');
  return output;
}

/**
 * Starts `command` in bash in a process group of its own and resolves once its stdout shows `ready`
 * (then SIGTERMs the group) or it exits: for a documented command that serves until stopped.
 */
export function pasteUntil(
  command: string,
  ready: RegExp,
  opts: { cwd: string; env: Record<string, string> },
): Promise<ShellResult & { ready: boolean }> {
  const child = spawn('bash', ['-c', command], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let seen = false;
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!seen && ready.test(stdout)) {
      seen = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    }
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr, ready: seen }));
  });
}

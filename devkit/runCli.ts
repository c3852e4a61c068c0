import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userKeysDir } from '../lib/archive/keys/localKeysLocation.ts';
import { childOutput } from './childOutput.ts';
import { TEST_RUN_FOLDER } from './testRunFolderVariable.ts';

export const CLI = fileURLToPath(new URL('../bin/tunnel-archiver.js', import.meta.url));
/** The CLI with crash points (devkit/crashPointCli.js): its first argument is the crash point, `PHASE:N`. */
export const CRASH_POINT_CLI = fileURLToPath(new URL('./crashPointCli.js', import.meta.url));

/**
 * XDG_CONFIG_HOME of the CLI children: a folder of this process, so no test run writes an archive's keys
 * into the user's own configuration folder. Under Vitest it is inside the run's folder, which the run
 * removes; elsewhere (the bench) it is removed when the process exits.
 */
export const CLI_CONFIG_HOME = ownConfigHome();

function ownConfigHome(): string {
  const runFolder = process.env[TEST_RUN_FOLDER];
  if (runFolder !== undefined && runFolder !== '') return mkdtempSync(join(runFolder, 'ta-cli-config-'));
  const dir = mkdtempSync(join(tmpdir(), 'ta-cli-config-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Where a CLI child keeps the keys of the local archive at `dest` (the per-user default). */
export function cliKeysDir(dest: string): string {
  return userKeysDir(dest, { XDG_CONFIG_HOME: CLI_CONFIG_HOME });
}

/**
 * The environment of a CLI child: the caller's `env` over PATH, HOME and the tests' own XDG_CONFIG_HOME
 * (`CLI_CONFIG_HOME`), nothing else of this process's.
 */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    XDG_CONFIG_HOME: CLI_CONFIG_HOME,
    ...env,
  };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI in a child Node process (as a user would: `node bin/tunnel-archiver.js`, under `node`,
 * by default the tests' own), optionally SIGKILLing it after `killAfterMs`, optionally in a process group of
 * its own (`detached`), optionally with a crash point (`crashAt`, `PHASE:N`: it SIGKILLs itself right after
 * that step, through the dev kit's entry, devkit/crashPointCli.js). It settles when the process has
 * exited and its stdout and stderr have closed; `output()` gives what they carried so far.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  opts: { killAfterMs?: number; node?: string; detached?: boolean; crashAt?: string } = {},
): Promise<CliResult> & { child: ChildProcess; output: () => { stdout: string; stderr: string } } {
  const entry = opts.crashAt === undefined ? [CLI] : [CRASH_POINT_CLI, opts.crashAt];
  const child = spawn(opts.node ?? process.execPath, [...entry, ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so a test can signal the group as a terminal's Ctrl-C does.
    detached: opts.detached ?? false,
  });
  const { output } = childOutput(child);
  const timer =
    opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, ...output() });
    });
  });
  return Object.assign(done, { child, output });
}

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { childOutput } from '../../devkit/childOutput.ts';
import { CLI } from '../../devkit/runCli.ts';
import type { CliIo } from '../../lib/cli/cliIo.ts';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI's executable (named once, in `devkit/runCli.ts`). */
export const BIN = CLI;

/**
 * TMPDIR of the CLI children: a folder of their own (one per test file), so another checkout's engine
 * that sweeps `<tmp>/tunnel-archiver-*` leftovers on this shared machine cannot remove a live run's files;
 * removed after the file, with the children's liveness locks in it.
 */
export const CHILD_TMPDIR = mkdtempSync(path.join(tmpdir(), 'ta-cli-children-'));
afterAll(() => rmSync(CHILD_TMPDIR, { recursive: true, force: true }));

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` (argv[0] = executable) in `cwd` with only `env` (plus PATH), as a user's shell would. */
export function spawnIn(cwd: string, argv: string[], env: Record<string, string> = {}): Promise<Ran> {
  const [file, ...args] = argv;
  const child = spawn(file as string, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? cwd,
      TMPDIR: CHILD_TMPDIR,
      XDG_CONFIG_HOME: path.join(CHILD_TMPDIR, 'config'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return childOutput(child);
}

/** The real CLI (`bin/tunnel-archiver.js`) in `cwd`. */
export const cliIn = (cwd: string, args: string[], env: Record<string, string> = {}): Promise<Ran> =>
  spawnIn(cwd, [process.execPath, BIN, ...args], env);

export const freshDir = (tag: string): Promise<string> => mkdtemp(path.join(tmpdir(), `ta-${tag}-`));

/** Every path under `dir`, hidden ones included, sorted: a before/after picture of the filesystem. */
export async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

/** Folders under `dir` that hold nothing. */
export async function emptyFolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const full = path.join(e.parentPath, e.name);
    if ((await readdir(full)).length === 0) out.push(path.relative(dir, full));
  }
  return out.sort();
}

/** An in-process CliIo that captures what is written. */
export function captureIo(env: Record<string, string | undefined> = {}, tty = false) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s), isTTY: tty },
    stderr: { write: (s: string) => (stderr += s), isTTY: tty },
    env,
  };
  return { io, out: () => stdout, err: () => stderr };
}

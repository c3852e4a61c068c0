import { type ChildProcess, execFile } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_NODE_FLAGS, RESPAWNED_ENV } from '../../bin/nodeFlags.js';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { CLI, runCli } from '../../devkit/runCli.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const tmp = tempDirPer('ta-cli-flags-');

/** What one process of the CLI reported from its preload: its pid and the flags Node was started with. */
interface Reported {
  pid: number;
  execArgv: string[];
}

/**
 * Starts the CLI under `node` as `node bin/tunnel-archiver.js …` (as the installed bin's `env node` does),
 * each of its processes reporting itself on stderr from a preload.
 */
function startCli(
  node: string,
  args: string[],
  opts: { nodeOptions?: string; parentPreload?: string; detached?: boolean } = {},
) {
  const preload = join(tmp.dir, `report-${++preloads}.cjs`);
  writeFileSync(
    preload,
    // Only the CLI's processes report (a bundle rebuild may start another Node process for esbuild).
    "if (/tunnel-archiver\\.js$/.test(process.argv[1] ?? '')) process.stderr.write('REPORTED ' + JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n');\n" +
      // `parentPreload` runs in the first process only (the one not started again).
      `if (process.env.${RESPAWNED_ENV} !== '1') {\n${opts.parentPreload ?? ''}\n}\n`,
  );
  const run = runCli(
    args,
    { HOME: tmp.dir, NODE_OPTIONS: `--require ${preload} ${opts.nodeOptions ?? ''}` },
    { node, ...(opts.detached ? { detached: true } : {}) },
  );
  const reported = (): Reported[] =>
    run
      .output()
      .stderr.split('\n')
      .filter((l) => l.startsWith('REPORTED '))
      .map((l) => JSON.parse(l.slice('REPORTED '.length)) as Reported);
  const started = Object.assign(run, { reported, settled: false });
  // Settled: every process that shares its stdout, the started one included, has ended.
  void run.then(() => {
    started.settled = true;
  });
  runs.push(started);
  return started;
}

let preloads = 0;

/** Every CLI started by a test: whatever of it still runs when the test ends (a failure) is killed. */
const runs: { child: ChildProcess; reported: () => Reported[]; settled: boolean }[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) {
    if (run.settled) continue;
    run.child.kill('SIGKILL');
    for (const { pid } of run.reported()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

/**
 * Resolves once `ok()` holds, checked at each chunk the CLI writes (events, no timer); rejects when the
 * CLI ends first.
 */
async function until(
  what: string,
  cli: { child: ChildProcess; then: Promise<unknown>['then'] },
  ok: () => boolean,
): Promise<void> {
  if (ok()) return;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!ok()) return;
      cli.child.stdout?.off('data', check);
      cli.child.stderr?.off('data', check);
      resolve();
    };
    // The listeners run after runCli's own, which gather the output `ok` reads.
    cli.child.stdout?.on('data', check);
    cli.child.stderr?.on('data', check);
    void cli.then(() => (ok() ? resolve() : reject(new Error(`the CLI ended before ${what}`))));
  });
}

describe('the Node flags the CLI runs with', () => {
  it('comes from one list: the executable, npm start and the docs', () => {
    // A plain `env node`: `env -S` does not exist in BusyBox (Alpine) or the BSDs.
    expect(readFileSync(CLI, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env node');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe(`node ${CLI_NODE_FLAGS.join(' ')} bin/tunnel-archiver.js start`);
    expect(readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')).toContain(
      `starts Node again with \`${CLI_NODE_FLAGS.join(' ')}\``,
    );
  });

  it("starts through BusyBox's env, Alpine's, as the kernel runs the shebang there (on Node 24)", async () => {
    // The kernel runs `<interpreter> <the rest of the line, as one argument> <script> <args>`.
    const line = readFileSync(CLI, 'utf8').split('\n', 1)[0] ?? '';
    const [interpreter, ...rest] = line.slice(2).trim().split(' ');
    expect(interpreter).toBe('/usr/bin/env');
    const { stdout } = await promisify(execFile)('busybox', ['env', rest.join(' '), CLI, '--version'], {
      env: { PATH: `${dirname(LAMBDA_NODE)}:${process.env.PATH ?? ''}`, HOME: tmp.dir },
    });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('on Node 24, a process started without them starts itself again with them, and ends as its child did', async () => {
    const ok = startCli(LAMBDA_NODE, ['--version']);
    expect(await ok).toMatchObject({ code: 0, signal: null });
    const [parent, child, ...more] = ok.reported();
    expect(parent?.execArgv).toEqual([]);
    expect(child?.execArgv).toEqual([...CLI_NODE_FLAGS]);
    expect(child?.pid).not.toBe(parent?.pid);
    expect(more).toEqual([]);
    expect(ok.output().stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/); // printed once, by the child

    // A usage error's exit code and message come through unchanged.
    const misuse = startCli(LAMBDA_NODE, ['run', '--bogus']);
    expect(await misuse).toMatchObject({ code: 2, signal: null });
    expect(misuse.output().stderr).toContain('unknown flag --bogus');
    expect(misuse.reported()).toHaveLength(2);
  });

  it('starts once when the flags are not needed: Node 20, or a value the user chose', async () => {
    const node20 = startCli(process.execPath, ['--version']);
    expect(await node20).toMatchObject({ code: 0, signal: null });
    expect(node20.reported()).toEqual([{ pid: expect.any(Number), execArgv: [] }]);

    const chosen = startCli(LAMBDA_NODE, ['--version'], { nodeOptions: '--max-semi-space-size=16' });
    expect(await chosen).toMatchObject({ code: 0, signal: null });
    expect(chosen.reported()).toHaveLength(1);
  });

  it('passes a signal on, and the child stops as it would alone (the emulator closes, exit 0)', async () => {
    const cli = startCli(LAMBDA_NODE, ['emulator', '--port', '0']);
    await until('the emulator to listen', cli, () => cli.output().stdout.includes('listening on'));
    expect(cli.reported()).toHaveLength(2);
    cli.child.kill('SIGTERM');
    expect(await cli).toMatchObject({ code: 0, signal: null });
    expect(cli.output().stdout).toContain('emulator stopped');
  });

  it('dies by the signal that killed its child', async () => {
    const cli = startCli(LAMBDA_NODE, ['emulator', '--port', '0']);
    await until('the emulator to listen', cli, () => cli.output().stdout.includes('listening on'));
    process.kill((cli.reported()[1] as Reported).pid, 'SIGKILL');
    expect(await cli).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it("a terminal's Ctrl-C, which reaches both processes, stops the emulator once and cleanly", async () => {
    // The terminal signals the foreground process group; the child, in a group of its own, gets it once,
    // passed on by its parent (twice, and the second would kill it while it closes).
    const cli = startCli(LAMBDA_NODE, ['emulator', '--port', '0'], { detached: true });
    await until('the emulator to listen', cli, () => cli.output().stdout.includes('listening on'));
    expect(cli.reported()).toHaveLength(2);
    process.kill(-(cli.child.pid as number), 'SIGINT');
    expect(await cli).toMatchObject({ code: 0, signal: null });
    expect(cli.output().stdout.match(/emulator stopped/g)).toHaveLength(1);
  });

  it('exits 128 + the signal when its child died of a signal this process survives', async () => {
    // The first process ignores SIGUSR2 (a preload's listener); the child, without one, dies of it.
    const cli = startCli(LAMBDA_NODE, ['emulator', '--port', '0'], {
      parentPreload: "process.on('SIGUSR2', () => {});",
    });
    await until('the emulator to listen', cli, () => cli.output().stdout.includes('listening on'));
    process.kill((cli.reported()[1] as Reported).pid, 'SIGUSR2');
    expect(await cli).toMatchObject({ code: 128 + constants.signals.SIGUSR2, signal: null });
  });

  it('says so and exits 1 when Node cannot be started again', async () => {
    // A copy of Node that removes itself as it starts: the second start finds no executable.
    const node = join(tmp.dir, 'node-once');
    copyFileSync(LAMBDA_NODE, node);
    chmodSync(node, 0o755);
    const cli = startCli(node, ['--version'], {
      parentPreload: "require('node:fs').unlinkSync(process.execPath);",
    });
    expect(await cli).toMatchObject({ code: 1, signal: null });
    expect(cli.output().stderr).toContain(
      'tunnel-archiver: cannot start Node again with --max-semi-space-size=',
    );
    expect(cli.reported()).toHaveLength(1);
  });

  it('never leaves the child running when it is killed itself, even by SIGKILL', async () => {
    const cli = startCli(LAMBDA_NODE, ['emulator', '--port', '0']);
    await until('the emulator to listen', cli, () => cli.output().stdout.includes('listening on'));
    cli.child.kill('SIGKILL');
    // The run settles when stdout closes too: the child shares the pipe, so only once it has ended too.
    // It ended by closing the emulator.
    expect(await cli).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(cli.output().stdout).toContain('emulator stopped');
  });
});

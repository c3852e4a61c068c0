// Starts the CLI again under the same Node with flags it was not started with (bin/nodeFlags.js), the way
// mocha and gulp's flagged-respawn do, because a shebang cannot carry them everywhere: BusyBox's `env`
// (Alpine) and the BSDs' have no `-S`, and `node bin/tunnel-archiver.js` reads no shebang at all.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { RESPAWNED_ENV } from './nodeFlags.js';

/** Signals a supervisor or a terminal sends to stop a process: passed on to the started process. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs `script` with the same arguments in a child Node process with `flags` added, its stdio the parent's,
 * and ends this process as the child ended: with its exit code, or killed by the same signal. Signals sent
 * to this process, a terminal's included, are passed on, once. Through an IPC channel the child learns when this process dies, even by
 * SIGKILL, and stops too (see {@link stopWithParent}).
 */
export function respawn(script, flags) {
  const child = spawn(process.execPath, [...process.execArgv, ...flags, script, ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [RESPAWNED_ENV]: '1' },
    // A process group of its own (POSIX; on Windows it would open a console): a terminal's Ctrl-C then
    // reaches this process alone, which passes it on, so the child gets each signal once, not twice.
    detached: process.platform !== 'win32',
  });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  child.once('error', (error) => {
    for (const signal of FORWARDED) process.off(signal, forward);
    process.stderr.write(
      `tunnel-archiver: cannot start Node again with ${flags.join(' ')}: ${error.message}\n`,
    );
    process.exitCode = 1;
  });
  child.once('exit', (code, signal) => {
    for (const signal of FORWARDED) process.off(signal, forward);
    if (signal === null) {
      process.exitCode = code ?? 1;
      return;
    }
    // A shell's code for a death by signal, should this process outlive the signal (one Node ignores).
    process.exitCode = 128 + (constants.signals[signal] ?? 0);
    process.kill(process.pid, signal);
  });
}

/**
 * In a process {@link respawn} started: leaves the marker out of what this process starts in turn, and
 * stops this process (SIGTERM: the emulator closes, a run ends as a killed run does) when the parent is
 * gone, so that killing the parent, even by SIGKILL, never leaves the CLI running on its own.
 */
export function stopWithParent() {
  if (process.env[RESPAWNED_ENV] !== '1') return;
  delete process.env[RESPAWNED_ENV];
  if (process.channel === undefined) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

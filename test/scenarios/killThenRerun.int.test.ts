import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRASH_POINT_CLI, cliEnv, cliKeysDir, runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY } from '../../devkit/startEmulator.ts';
import { LOCAL_KEY_FILES } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { expectArchiveExact, startWorld, type World, windowDays } from '../support/engineKit.ts';
import { seededRandom, testSeed } from '../support/testSeed.ts';

const START = Date.parse('2026-10-01T06:00:00.000Z');
let world: World;
let dest: string;
const env = { TUNNEL_API_KEY: EMULATOR_PAID_KEY, LOG_LEVEL: 'error' };
const args = (now: Date) => [
  'run',
  '--now',
  now.toISOString(),
  '--base-url',
  world.emulator.url,
  '--dest',
  `file://${dest}`,
];

beforeAll(async () => {
  world = await startWorld({ start: new Date(START).toISOString(), store: 'file' });
  dest = join(world.dir, 'local');
});
afterAll(async () => {
  await world.close();
});

/** The steps a run is killed at, each with the lock held (the crash-wrapped ports serve only the run). */
const CRASH_POINTS = ['walk:1', 'walk:2', 'walk:4', 'upload:1', 'commit:1', 'publish:1', 'digest:1'];

/**
 * Starts the CLI under a parent that never reaps it (`sh` replaced by `sleep`), as in a container whose
 * init never reaps, at a crash point (the dev kit's crash-point CLI): the run SIGKILLs itself right after
 * that step, its lock held. Its pid then still exists, as a zombie, while the next run starts. Resolves
 * once it is a zombie, with the signal that ended it (0: it exited by itself).
 */
async function killUnreaped(argv: string[], crashAt: string): Promise<{ signal: number; stop(): void }> {
  const quoted = [process.execPath, CRASH_POINT_CLI, crashAt, ...argv].map((a) => `'${a}'`).join(' ');
  const parent = spawn('sh', ['-c', `${quoted} >/dev/null 2>&1 & echo $!; exec sleep 600`], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = await new Promise<number>((resolve) =>
    parent.stdout?.once('data', (d) => resolve(Number(String(d).split('\n')[0]))),
  );
  await expect.poll(() => isZombie(pid), { timeout: 120_000, interval: 50 }).toBe(true);
  return { signal: await exitSignal(pid), stop: () => parent.kill('SIGKILL') };
}

const isZombie = async (pid: number): Promise<boolean> =>
  /^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));

/** The signal a zombie died of, from its wait status (`exit_code`, field 52 of /proc/PID/stat). */
async function exitSignal(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[49]) & 0x7f;
}

describe('a local run SIGKILLed mid-run, its lock held', () => {
  it('never blocks the next run, started at once: every rerun succeeds and the archive is exactly once', async () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    // Every crash point once, in an order drawn from the seed.
    const points = CRASH_POINTS.map((p) => [random(), p] as const)
      .sort(([a], [b]) => a - b)
      .map(([, p]) => p);
    let killed = 0;
    for (const [i, crashAt] of points.entries()) {
      // Each sample is a new day for both clocks, so every run has days due and work to be killed in.
      const now = new Date(START + i * 86_400_000);
      world.clock.set(now);
      const victim = await killUnreaped(args(now), crashAt);
      // Only a run killed at its crash point proves anything: one that ended by itself is not counted.
      if (victim.signal === 9) killed++;
      const next = await runCli(args(now), env);
      victim.stop();
      expect(next.code, `seed ${seed}, sample ${i}, killed at ${crashAt}: ${next.stderr}`).toBe(0);
    }
    // Every sample had work at each crash point: every run was killed there.
    expect(killed, `seed ${seed}: runs killed at their crash point`).toBe(points.length);
    const last = new Date(START + (points.length - 1) * 86_400_000);
    const days = windowDays(toDay(last));
    // Records keep arriving late for past days, and a day is rescanned only at its due ages: one last
    // on-demand rescan of the whole window, so the comparison is with everything the API shows now.
    const rescan = await runCli([...args(last), '--days', days.join(',')], env);
    expect(rescan.code, rescan.stderr).toBe(0);
    const cliKey = new Uint8Array(await readFile(join(cliKeysDir(dest), LOCAL_KEY_FILES.tokenKey)));
    await expectArchiveExact(world, createFileObjectStore(dest), days, cliKey);
  }, 600_000);
});

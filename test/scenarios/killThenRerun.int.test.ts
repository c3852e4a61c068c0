import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDay } from '../../lib/clock/day.ts';
import { EMULATOR_PAID_KEY } from '../../lib/emulator/startEmulator.ts';
import { LOCAL_KEY_FILES } from '../../lib/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/store/fileObjectStore.ts';
import { expectArchiveExact, startWorld, type World, windowDays } from '../support/engineKit.ts';
import { CLI, runCli } from '../support/runCli.ts';
import { seededRandom, testSeed } from '../support/testSeed.ts';

const START = Date.parse('2026-10-01T06:00:00.000Z');
const SAMPLES = 20;
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
  world = await startWorld({ start: new Date(START).toISOString(), store: 'file', faults: { delayMs: 10 } });
  dest = join(world.dir, 'local');
});
afterAll(async () => {
  await world.close();
});

/**
 * Starts the CLI under a parent that never reaps it (`sh` replaced by `sleep`), as in a container whose
 * init never reaps, and SIGKILLs it after `ms`: its pid then still exists, as a zombie, while the next
 * run starts. Resolves once the kill was sent (or the run ended first: then with its exit code).
 */
async function killUnreaped(argv: string[], ms: number): Promise<{ killed: boolean; stop(): void }> {
  const quoted = [process.execPath, CLI, ...argv].map((a) => `'${a}'`).join(' ');
  const parent = spawn('sh', ['-c', `${quoted} >/dev/null 2>&1 & echo $!; exec sleep 600`], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = await new Promise<number>((resolve) =>
    parent.stdout?.once('data', (d) => resolve(Number(String(d).split('\n')[0]))),
  );
  await new Promise((r) => setTimeout(r, ms));
  // A run that ended by itself is a zombie already (nobody reaps it): only a live one is killed.
  const killed = !(await isZombie(pid));
  if (killed) process.kill(pid, 'SIGKILL');
  await expect.poll(() => isZombie(pid), { timeout: 5000 }).toBe(true);
  return { killed, stop: () => parent.kill('SIGKILL') };
}

const isZombie = async (pid: number): Promise<boolean> =>
  /^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));

describe('a local run SIGKILLed at a random instant', () => {
  it('never blocks the next run, started at once: every rerun succeeds and the archive is exactly once', async () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    let killed = 0;
    for (let i = 0; i < SAMPLES; i++) {
      // Each sample is a new day for both clocks, so every run has days due and work to be killed in.
      const now = new Date(START + i * 86_400_000);
      world.clock.set(now);
      const ms = Math.round(100 + random() * 900);
      const victim = await killUnreaped(args(now), ms);
      if (victim.killed) killed++;
      const next = await runCli(args(now), env);
      victim.stop();
      expect(next.code, `seed ${seed}, sample ${i}, killed after ${ms} ms: ${next.stderr}`).toBe(0);
    }
    expect(killed, `seed ${seed}: kills that landed mid-run`).toBeGreaterThanOrEqual(SAMPLES / 2);
    const last = new Date(START + (SAMPLES - 1) * 86_400_000);
    const days = windowDays(toDay(last));
    // Records keep arriving late for past days, and a day is rescanned only at its due ages: one last
    // on-demand rescan of the whole window, so the comparison is with everything the API shows now.
    const rescan = await runCli([...args(last), '--days', days.join(',')], env);
    expect(rescan.code, rescan.stderr).toBe(0);
    const cliKey = new Uint8Array(await readFile(join(dest, '.keys', LOCAL_KEY_FILES.tokenKey)));
    await expectArchiveExact(world, createFileObjectStore(dest), days, cliKey);
  }, 300_000);
});

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runCliShared } from '../../devkit/runCli.ts';
import {
  EMULATOR_FREE_KEY,
  EMULATOR_PAID_KEY,
  type EmulatorHandle,
  startEmulator,
} from '../../devkit/startEmulator.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { SMALL_DATASET } from '../support/engineKit.ts';
import { CHILD_TMPDIR } from './cliKit.ts';

/** The shared runner, with the children's own TMPDIR (see CHILD_TMPDIR). */
const runCli = (args: string[], env: Record<string, string>) =>
  runCliShared(args, { TMPDIR: CHILD_TMPDIR, ...env });

const NOW = '2026-10-01T06:00:00.000Z';
let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ seed: 3, clock: new ManualClock(NOW), dataset: SMALL_DATASET });
  dir = await mkdtemp(join(tmpdir(), 'ta-cli-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

const baseArgs = (dest: string) => ['--now', NOW, '--base-url', emulator.url, '--dest', `file://${dest}`];

describe('tunnel-archiver CLI', () => {
  it.each([
    { key: 'not-a-key', code: 3, says: [/401/, /API key/i] },
    { key: EMULATOR_FREE_KEY, code: 4, says: [/403/, /plan/i] },
  ])('exits $code with one actionable line for key $key, writing nothing', async ({ key, code, says }) => {
    const dest = join(dir, `bad-${code}`);
    const r = await runCli(['run', ...baseArgs(dest)], { TUNNEL_API_KEY: key });
    expect(r.code).toBe(code);
    const line = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('error'));
    expect(line).toHaveLength(1);
    for (const re of says) expect(line[0]).toMatch(re);
    expect(line[0]).not.toContain(key === 'not-a-key' ? 'not-a-key' : EMULATOR_FREE_KEY);
    expect(existsSync(dest)).toBe(false);
  });

  it.each([
    { env: { TOKEN_VALUES: 'maybe' }, says: /TOKEN_VALUES must be keep, hash or drop, got 'maybe'/ },
    { env: { PAGE_SIZE: 'lots' }, says: /PAGE_SIZE must be an integer from 1 to 10000, got 'lots'/ },
    {
      env: { TUNNEL_API_BASE_URL: 'foo' },
      args: [],
      says: /TUNNEL_API_BASE_URL must be an http\(s\) URL, got 'foo'/,
    },
  ])('exits 2 on bad configuration: $says', async ({ env, says, args }) => {
    const dest = join(dir, 'bad-config');
    const r = await runCli(['run', ...(args ?? baseArgs(dest))], {
      TUNNEL_API_KEY: EMULATOR_PAID_KEY,
      ...env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(existsSync(dest)).toBe(false);
  });

  it('runs, reports, shows status and verifies a local archive; a second run adds nothing', async () => {
    const dest = join(dir, 'good');
    const env = { TUNNEL_API_KEY: EMULATOR_PAID_KEY, LOG_LEVEL: 'error' };
    const first = await runCli(['run', ...baseArgs(dest), '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary.daysScanned).toBe(60);
    expect(summary.recordsNew).toBeGreaterThan(100);
    expect(existsSync(join(dest, 'history'))).toBe(true);

    const second = await runCli(['run', ...baseArgs(dest), '--json'], env);
    expect(JSON.parse(second.stdout).recordsNew).toBe(0);

    const status = await runCli(['status', '--now', NOW, '--dest', `file://${dest}`], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/2026-10-01\s+0\s+0\s+no/);
    expect(status.stdout).toMatch(/2026-08-03\s+59\s+59\s+yes/);

    // Every run ends with a digest: verify checks the archive against them.
    const verify = await runCli(['verify', ...baseArgs(dest)], env);
    expect(verify.stdout).toContain('verify OK');
    expect(verify.code).toBe(0);
  });

  it('verify exits 5 when the archive misses records the API has', async () => {
    const dest = join(dir, 'partial');
    const env = { TUNNEL_API_KEY: EMULATOR_PAID_KEY, LOG_LEVEL: 'error' };
    const r = await runCli(['run', ...baseArgs(dest), '--days', '2026-09-30'], env);
    expect(r.code, r.stderr).toBe(0);
    const verify = await runCli(['verify', ...baseArgs(dest)], env);
    expect(verify.code).toBe(5);
    expect(verify.stdout).toMatch(/missing/);
  });

  it('prints usage with --help right from the bin entry, and each setting in the run help', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tunnel-archiver run');
    const run = await runCli(['run', '--help'], {});
    expect(run.stdout).toContain('TUNNEL_API_BASE_URL');
  });
});

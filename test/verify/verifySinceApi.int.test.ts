import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

/**
 * `verify --since DAY` with an API key: the quick check compares the API from that day on, as it checks the
 * partitions from that day on; the days before it are left to the full check, which still sees them.
 */
const NOW = '2026-11-20T12:00:00Z';
const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20'];
const tmp = tempDirPer('ta-verify-since-api-');
let emulator: EmulatorHandle;
let dest: string;

interface VerifyJson {
  days: { day: string; missing: number }[];
  failures: { kind: string; message: string }[];
}

beforeAll(async () => {
  emulator = await startEmulator({ clock: fixedClock(NOW), detectionDemo: true });
  dest = `${tmp.dir}/archive`;
  // Only the newest three days archived: every older day of the window is missing from it.
  const start = await runCli(['start', '--dest', dest, '--quiet', '--days', DAYS.join(','), '--now', NOW], {
    TMPDIR: tmp.dir,
  });
  expect(start.code, start.stderr).toBe(0);
});

afterAll(async () => {
  await emulator?.close();
});

const verify = (extra: string[]) =>
  runCli(['verify', '--dest', dest, '--now', NOW, '--json', ...extra], {
    TMPDIR: tmp.dir,
    TUNNEL_API_KEY: EMULATOR_PAID_KEY,
    TUNNEL_API_BASE_URL: emulator.url,
  });

describe('verify --since with the API', () => {
  it('compares only the days from --since on, and passes when they are archived', async () => {
    const r = await verify(['--since', DAYS[1] as string]);
    const out = JSON.parse(r.stdout) as VerifyJson;
    expect(out.failures, r.stderr).toEqual([]);
    expect(r.code).toBe(0);
    expect(out.days.map((d) => d.day)).toEqual(DAYS.slice(1));
  });

  it('the full check still reports the days the archive lacks', async () => {
    const r = await verify([]);
    const out = JSON.parse(r.stdout) as VerifyJson;
    expect(r.code).toBe(5);
    expect(out.failures.some((f) => f.kind === 'missing-records')).toBe(true);
    expect(out.days.filter((d) => d.missing > 0).every((d) => d.day < (DAYS[0] as string))).toBe(true);
  });
});

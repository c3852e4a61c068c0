import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { activeCommand } from '../../lib/cli/activeCommand.ts';
import { COMMAND_FLAGS } from '../../lib/cli/commandFlags.ts';
import { parseCliFlags } from '../../lib/cli/parseCliFlags.ts';

const NOW = '2025-03-01T12:00:00.000Z';

function io() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
      env: { TUNNEL_API_KEY: EMULATOR_PAID_KEY },
    },
  };
}

describe('activeCommand', () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ clock: fixedClock(NOW) });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('prints every live tunnel of the emulator as a table', async () => {
    const { out, io: cli } = io();
    const code = await activeCommand(
      parseCliFlags(['--base-url', emulator.url, '--now', NOW], COMMAND_FLAGS.active),
      cli,
    );
    expect(code).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    const expected = emulator.active().length;
    expect(lines).toHaveLength(expected + 2);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^${expected} live tunnel\\(s\\); \\d+ open longer than history can show$`),
    );
  });

  it('--json gives the rows with ages and the long flag, oldest first', async () => {
    const { out, io: cli } = io();
    const before = Date.now();
    await activeCommand(
      parseCliFlags(['--base-url', emulator.url, '--now', NOW, '--json'], COMMAND_FLAGS.active),
      cli,
    );
    const took = Date.now() - before;
    const parsed = JSON.parse(out.stdout) as {
      now: string;
      sessions: { id: string; creationTime: string }[];
    };
    // --now starts a moving clock: NOW plus at most the real time the command took.
    expect(Date.parse(parsed.now) - Date.parse(NOW)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(parsed.now) - Date.parse(NOW)).toBeLessThanOrEqual(took);
    expect(parsed.sessions.map((s) => s.id).sort()).toEqual(
      emulator
        .active()
        .map((s) => s.id)
        .sort(),
    );
    const times = parsed.sessions.map((s) => s.creationTime);
    expect([...times].sort()).toEqual(times);
  });
});

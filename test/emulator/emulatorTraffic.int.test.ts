import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import type { LiveShape } from '../../lib/archive/emulator/liveShape.ts';
import { TEAM, teamTraffic } from '../../lib/archive/emulator/teamTraffic.ts';
import { liveJoinToken } from '../../lib/archive/records/liveJoinToken.ts';
import { runEmulatorCommand } from '../../lib/cli/emulatorCommand.ts';
import { dayRange } from '../../lib/foundation/clock/day.ts';
import { getJson, historyPath } from './emulatorKit.ts';

const NOW = '2026-03-04T12:00:00Z'; // a Wednesday

/** A digest of what the emulator holds for a week: every day's history records and the active list. */
async function datasetDigest(traffic?: 'default' | 'team', liveShape?: LiveShape): Promise<string> {
  const emulator = await startEmulator({
    clock: fixedClock(NOW),
    port: 0,
    ...(traffic === undefined ? {} : { traffic }),
    ...(liveShape === undefined ? {} : { liveShape }),
  });
  try {
    const hash = createHash('sha256');
    for (const day of dayRange('2026-02-25', '2026-03-04')) hash.update(JSON.stringify(emulator.truth(day)));
    hash.update(JSON.stringify(emulator.active()));
    return hash.digest('hex');
  } finally {
    await emulator.close();
  }
}

/** Runs `tunnel-archiver emulator <args>` until `use` is done; returns its stdout. */
async function withEmulatorCommand(args: string[], use: (url: string) => Promise<void>): Promise<string> {
  const stop = new AbortController();
  let out = '';
  let seen: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    seen = resolve;
  });
  const io = {
    stdout: {
      write: (s: string) => {
        out += s;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*try: /.exec(out);
        if (m?.[1]) seen(m[1]);
      },
    },
    stderr: { write: (s: string) => s },
    signal: stop.signal,
  };
  const running = runEmulatorCommand(['--port', '0', ...args], io);
  try {
    await use(await listening);
  } finally {
    stop.abort();
    expect(await running).toBe(0);
  }
  return out;
}

describe('the emulator traffic profiles', () => {
  it('serves the default dataset unchanged, whether `traffic` is omitted or `default`', async () => {
    // The digest of the default dataset before traffic profiles existed, its active list token-filled.
    const pinned = 'fbf7384f81ad63c2988086eea5477f35c8b8de7993725f619bed621000dc6787';
    expect(await datasetDigest(undefined, 'token-filled')).toBe(pinned);
    expect(await datasetDigest('default', 'token-filled')).toBe(pinned);
    expect(await datasetDigest('team', 'token-filled')).not.toBe(pinned);
    // The same dataset in the documented live shape (the default), its active list without tokens.
    const documented = await datasetDigest();
    expect(documented).not.toBe(pinned);
    expect(await datasetDigest('default', 'documented')).toBe(documented);
  });

  it('`emulator --traffic team` serves the team profile: its tunnels, office NAT, CI bots and the long tunnel', async () => {
    const day = '2026-03-03'; // a Tuesday
    const want = teamTraffic('1', day, 1);
    const out = await withEmulatorCommand(
      ['--now', NOW, '--traffic', 'team', '--stable-order'],
      async (url) => {
        const page = await getJson<{
          content: { token_value: string; client_ip: string; start_time: string }[];
        }>(url, historyPath(day, day, { size: 2000 }));
        expect(page.content.length).toBe(want.length);
        expect(new Set(page.content.map((r) => r.token_value))).toEqual(
          new Set(want.map((s) => s.token_hmac)),
        );
        expect(new Set(page.content.map((r) => r.client_ip.replace(/^\[(.*)\]:\d+$/, '$1')))).toEqual(
          new Set(want.map((s) => s.client_address)),
        );
        expect(page.content.some((r) => r.client_ip.startsWith(`[${TEAM.officeNat}]:`))).toBe(true);
        // 12:00 UTC on a working day: the daily 9-hour tunnel is open.
        const active = await getJson<{ token: string | null; virtualToken: string; port: number }[]>(
          url,
          '/backend/api/v1/session/active',
        );
        // The documented shape names the token only inside `virtualToken` (`<token>-<port>`).
        expect(active.map((a) => a.token).filter((t) => t !== null)).toEqual([]);
        expect(active.map((a) => liveJoinToken(a.token, a.virtualToken, a.port))).toContain(
          `team-person-${TEAM.longTunnelPerson}`,
        );
      },
    );
    expect(out).toContain('traffic: team');
  });

  it('refuses a traffic profile it does not have', async () => {
    const err: string[] = [];
    const io = { stdout: { write: (s: string) => s }, stderr: { write: (s: string) => err.push(s) } };
    expect(await runEmulatorCommand(['--port', '0', '--traffic', 'office'], io)).toBe(2);
    expect(err.join('')).toContain("--traffic must be default or team, got 'office'");
    await expect(startEmulator({ port: 0, traffic: 'office' as never })).rejects.toThrow(/traffic/);
  });
});

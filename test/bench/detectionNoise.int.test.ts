import { describe, expect, it } from 'vitest';
import { detectionNoise } from '../../bench/detectionNoise.ts';
import { deployedSchedule } from '../../devkit/deployedSchedule.ts';
import { TEAM, teamTraffic } from '../../lib/archive/emulator/teamTraffic.ts';

describe('the noise budget: a team of twelve, eight weeks, the settings it writes', () => {
  it('the team profile has the traffic it describes', () => {
    const week = teamTraffic('team', '2026-03-02', 7);
    const tokens = new Set(week.map((s) => s.token_hmac));
    expect(tokens.size).toBe(TEAM.people + TEAM.bots.length);
    // The bots: one tunnel an hour, every day, from their fixed address.
    for (const bot of TEAM.bots) {
      const mine = week.filter((s) => s.token_hmac === bot.token);
      expect(mine).toHaveLength(7 * 24);
      expect(new Set(mine.map((s) => s.client_address))).toEqual(new Set([bot.address]));
    }
    // The daily 9-hour tunnel, on the five working days.
    const long = week.filter((s) => s.end.getTime() - s.start.getTime() === 9 * 3_600_000);
    expect(long).toHaveLength(5);
    expect(week.some((s) => s.client_address === TEAM.officeNat)).toBe(true);
    expect(week.some((s) => s.client_address.includes(':'))).toBe(true);
  });

  it('all rules together deliver at most 2 new findings a week, on the stack schedules (the first week after the baseline; the bench replays eight)', async () => {
    const noise = await detectionNoise(1);
    // The replay starts 6 hours before the week; every rule runs hourly (its own schedule), the
    // snapshot function at the stack's rate.
    const hours = 7 * 24 + 6;
    expect(noise.evaluations).toBe(hours);
    expect(noise.snapshots).toBe((hours * 3_600_000) / deployedSchedule().snapshotMs);
    expect(noise.perWeek, JSON.stringify(noise.perRule)).toBeLessThanOrEqual(noise.maxPerWeek);
  }, 1_200_000);
});

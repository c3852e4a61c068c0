import { addDays, type Day } from '../../foundation/index.ts';
import { Rng, seedFrom } from './prng.ts';

/** One tunnel of the team profile (what history would hold for it, before tokens are hashed). */
export interface TeamSession {
  session_id: string;
  /** The token as the rules see it (its digest in a real archive). */
  token_hmac: string;
  user_email: string;
  client_address: string;
  start: Date;
  end: Date;
}

/** The team: where it works and the addresses and tokens it always uses. */
export const TEAM = {
  timeZone: 'Europe/Berlin',
  people: 12,
  /** The office's NAT: every person in the office shares it. */
  officeNat: '203.0.113.10',
  /** Two CI bots with fixed addresses, a tunnel every hour around the clock. */
  bots: [
    { token: 'team-ci-1', address: '192.0.2.50' },
    { token: 'team-ci-2', address: '192.0.2.51' },
  ],
  /** The person with the daily 9-hour tunnel (08:30 to 17:30). */
  longTunnelPerson: 0,
  holidays: ['2026-04-03', '2026-04-06', '2026-05-01'] as Day[],
} as const;

/** The settings file such a team writes (`detect --settings`): its zone, days, holidays and exemptions. */
export const TEAM_SETTINGS = {
  settings: {
    time_zone: TEAM.timeZone,
    workdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
    holidays: [...TEAM.holidays],
    baseline_days: 14,
  },
  rules: {
    off_hours: { exempt_tokens: TEAM.bots.map((b) => b.token) },
    shared_client_address: { exempt_networks: [`${TEAM.officeNat}/32`] },
  },
};

/** The instant of `hour`:`minute` on `day` in `zone` (two offset lookups settle a DST change). */
function zoned(day: Day, hour: number, minute: number, zone: string): Date {
  const guess = Date.parse(`${day}T00:00:00Z`) + (hour * 60 + minute) * 60_000;
  const offset = (at: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    }).formatToParts(new Date(at));
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute')) - at;
  };
  const first = guess - offset(guess);
  return new Date(guess - offset(first));
}

const isWorkday = (day: Day) => {
  const dow = new Date(`${day}T12:00:00Z`).getUTCDay();
  return dow !== 0 && dow !== 6 && !(TEAM.holidays as readonly string[]).includes(day);
};

/**
 * A dozen people's ordinary tunnels, day by day from `from` for `days` days (deterministic for a
 * seed): on working days each works from the office (behind its NAT) or from home (a home address of
 * their own, IPv6 for some, whose interface id changes), two to four tunnels between 08:00 and 18:30
 * local time; one person keeps a 9-hour tunnel open every working day; two CI bots open a short tunnel
 * every hour, every day, from fixed addresses. An additive profile: the emulator's default dataset
 * does not use it.
 */
export function teamTraffic(seed: string, from: Day, days: number): TeamSession[] {
  const out: TeamSession[] = [];
  const add = (s: Omit<TeamSession, 'session_id'>) =>
    out.push({ ...s, session_id: `team-${String(out.length).padStart(6, '0')}` });
  for (let d = 0; d < days; d++) {
    const day = addDays(from, d);
    const rng = new Rng(seedFrom(seed, 'team', day));
    for (const bot of TEAM.bots) {
      for (let h = 0; h < 24; h++) {
        const start = new Date(Date.parse(`${day}T00:00:00Z`) + h * 3_600_000 + rng.int(0, 5) * 60_000);
        add({
          token_hmac: bot.token,
          user_email: 'ci@team.example',
          client_address: bot.address,
          start,
          end: new Date(start.getTime() + rng.int(4, 14) * 60_000),
        });
      }
    }
    if (!isWorkday(day)) continue;
    for (let p = 0; p < TEAM.people; p++) {
      const email = `person${p}@team.example`;
      const token = `team-person-${p}`;
      const atHome = rng.chance(0.35);
      const home =
        p % 3 === 0
          ? `2001:db8:${(0x100 + p).toString(16)}:1:${rng.int(1, 0xffff).toString(16)}::${rng.int(1, 0xff).toString(16)}`
          : `198.51.100.${20 + p}`;
      const address = atHome ? home : TEAM.officeNat;
      if (p === TEAM.longTunnelPerson) {
        add({
          token_hmac: token,
          user_email: email,
          client_address: address,
          start: zoned(day, 8, 30, TEAM.timeZone),
          end: zoned(day, 17, 30, TEAM.timeZone),
        });
        continue;
      }
      const tunnels = rng.int(2, 4);
      for (let t = 0; t < tunnels; t++) {
        const start = zoned(day, rng.int(8, 16), rng.int(0, 59), TEAM.timeZone);
        const minutes = rng.int(15, 150);
        add({
          token_hmac: token,
          user_email: email,
          client_address: address,
          start,
          end: new Date(
            Math.min(start.getTime() + minutes * 60_000, zoned(day, 19, 0, TEAM.timeZone).getTime()),
          ),
        });
      }
    }
  }
  return out;
}

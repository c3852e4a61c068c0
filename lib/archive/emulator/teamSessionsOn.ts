import type { Day } from '../../foundation/index.ts';
import type { EmulatedSession, WireActiveSession, WireHistoryRecord } from './dataset.ts';
import { seedFrom } from './prng.ts';
import { type TeamSession, teamTraffic } from './teamTraffic.ts';
import { formatTimestamp } from './wireFormat.ts';

/** The public port of a team tunnel (HTTP: history's `port` is null). */
const TEAM_PORT = 443;

/** One tunnel of the team profile as the emulator serves it (history row and active-list entry). */
class TeamEmulatedSession implements EmulatedSession {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly lagMs = 0;
  readonly orderKey: number;
  readonly #session: TeamSession;
  readonly #index: number;
  readonly #day: Day;

  constructor(session: TeamSession, index: number, day: Day, seed: string) {
    this.#session = session;
    this.#index = index;
    this.#day = day;
    this.id = `team:${day}#${index}`;
    this.startMs = session.start.getTime();
    this.endMs = session.end.getTime();
    // A 32-bit integer over 2^32, as every generated session's (SessionArchive sorts by packing it).
    this.orderKey = (seedFrom(seed, 'team-order', day, index) >>> 0) / 2 ** 32;
  }

  get history(): WireHistoryRecord {
    const s = this.#session;
    return {
      start_time: formatTimestamp(this.startMs),
      end_time: formatTimestamp(this.endMs),
      user_email: s.user_email,
      token_value: s.token_hmac,
      virtual_token_value: null,
      domains: [this.#subdomain()],
      mode: 'http',
      mode_udp: '',
      client_ip: `[${s.client_address}]:${40_000 + (this.#index % 20_000)}`,
      port: null,
    };
  }

  get active(): WireActiveSession {
    const h = this.history;
    const digits = `${this.#day.replaceAll('-', '')}${String(this.#index).padStart(4, '0')}`;
    return {
      id: `00000000-0000-4000-a000-${digits.slice(-12).padStart(12, '0')}`,
      userId: 2_000_000,
      tokenId: 200_000 + (this.#index % 1_000),
      token: this.#session.token_hmac,
      tokenName: this.#session.token_hmac,
      // `<token>-<port>`, as the service names it (the documented shape sends only this).
      virtualToken: `${this.#session.token_hmac}-${TEAM_PORT}`,
      virtualTokenName: null,
      subdomain: this.#subdomain(),
      customdomain: null,
      mode: h.mode,
      modeUdp: h.mode_udp,
      port: TEAM_PORT,
      creationTimestamp: h.start_time,
      lastUpdateTimestamp: h.start_time,
    };
  }

  #subdomain(): string {
    return `${this.#session.token_hmac}.a.pinggy.link`;
  }
}

/**
 * The team profile's tunnels that start on `day` (`teamTraffic`), as emulated sessions: what
 * `tunnel-archiver emulator --traffic team` serves instead of the default dataset. Deterministic for a seed.
 */
export function teamSessionsOn(seed: string | number, day: Day): EmulatedSession[] {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  return teamTraffic(String(seed), day, 1)
    .filter((s) => s.start.getTime() >= dayStart && s.start.getTime() < dayStart + 86_400_000)
    .map((s, i) => new TeamEmulatedSession(s, i, day, String(seed)));
}

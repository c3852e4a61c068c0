import { addDays } from '../../foundation/index.ts';
import type { EmulatedSession, WireActiveSession, WireHistoryRecord } from './dataset.ts';
import { formatTimestamp } from './wireFormat.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The user every planted session belongs to (no generated user has this address). */
export const PLANTED_EMAIL = 'planted.pattern@example.net';

interface Plant {
  /** The detection rule the pattern is planted for. */
  rule: string;
  token: string;
  /** Day offset from the anchor day (−1 = the day before) and start time of day. */
  day: -1 | -2 | -10;
  at: number;
  durationMs: number;
  client: string;
  domains?: string[];
  modeUdp?: string;
}

const at = (h: number, m = 0) => h * HOUR + m * MINUTE;

/** One pattern per starter rule; each token is used by its pattern only. */
export const PLANTS: readonly Plant[] = [
  {
    rule: 'long_tunnel',
    token: 'PLANTLONG',
    day: -2,
    at: at(9),
    durationMs: 30 * HOUR,
    client: '203.0.113.10',
  },
  ...['198.51.100.20', '203.0.113.20', '192.0.2.20', '100.64.7.20', '172.16.5.20'].map((client, i) => ({
    rule: 'token_many_networks',
    token: 'PLANTNETS',
    day: -1 as const,
    at: at(9 + i),
    durationMs: 10 * MINUTE,
    client,
  })),
  {
    rule: 'first_seen_token',
    token: 'PLANTNEW1',
    day: -1,
    at: at(10),
    durationMs: 20 * MINUTE,
    client: '203.0.113.30',
  },
  {
    rule: 'off_hours',
    token: 'PLANTNITE',
    day: -1,
    at: at(2, 30),
    durationMs: 40 * MINUTE,
    client: '203.0.113.40',
  },
  {
    rule: 'domain_not_allowlisted',
    token: 'PLANTDOMN',
    day: -1,
    at: at(11),
    durationMs: 15 * MINUTE,
    client: '203.0.113.50',
    domains: ['exfil.attacker.example'],
  },
  ...[0, 5, 10, 15, 20, 25].map((m) => ({
    rule: 'short_session_burst',
    token: 'PLANTBRST',
    day: -1 as const,
    at: at(14, m),
    durationMs: 10_000,
    client: '203.0.113.60',
  })),
  ...['PLANTSHR1', 'PLANTSHR2', 'PLANTSHR3'].map((token, i) => ({
    rule: 'shared_client_address',
    token,
    day: -1 as const,
    at: at(10 + i, 30),
    durationMs: 5 * MINUTE,
    client: '203.0.113.77',
  })),
  // 30 tunnels of one token open at once (office traffic peaks at about 15 per token).
  ...Array.from({ length: 30 }, (_, i) => ({
    rule: 'concurrent_sessions',
    token: 'PLANTCONC',
    day: -1 as const,
    at: at(16) + i * 10_000,
    durationMs: 20 * MINUTE,
    client: '203.0.113.100',
  })),
  // A baseline ten days before, then a new network.
  {
    rule: 'new_client_network',
    token: 'PLANTMOVE',
    day: -10,
    at: at(10),
    durationMs: 30 * MINUTE,
    client: '203.0.113.90',
  },
  {
    rule: 'new_client_network',
    token: 'PLANTMOVE',
    day: -1,
    at: at(15),
    durationMs: 30 * MINUTE,
    client: '198.51.100.90',
  },
  {
    rule: 'udp_tunnel',
    token: 'PLANTUDPX',
    day: -1,
    at: at(12),
    durationMs: 30 * MINUTE,
    client: '203.0.113.80',
    modeUdp: 'udp',
  },
];

class PlantedSession implements EmulatedSession {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly lagMs = 0;
  readonly orderKey: number;
  readonly #plant: Plant;
  readonly #index: number;

  constructor(plant: Plant, index: number, dayStartMs: number) {
    this.#plant = plant;
    this.#index = index;
    this.id = `planted#${index}`;
    this.startMs = dayStartMs + plant.at;
    this.endMs = this.startMs + plant.durationMs;
    // A 32-bit integer over 2^32, as every generated session's (SessionArchive sorts by packing it).
    this.orderKey = Math.floor(((index + 0.5) / PLANTS.length) * 2 ** 32) / 2 ** 32;
  }

  get history(): WireHistoryRecord {
    const p = this.#plant;
    return {
      start_time: formatTimestamp(this.startMs),
      end_time: formatTimestamp(this.endMs),
      user_email: PLANTED_EMAIL,
      token_value: p.token,
      virtual_token_value: null,
      domains: p.domains ?? [`planted${this.#index}.a.pinggy.link`],
      mode: 'tcp',
      mode_udp: p.modeUdp ?? '',
      client_ip: `[${p.client}]:${40_000 + this.#index}`,
      port: 20_000 + this.#index,
    };
  }

  get active(): WireActiveSession {
    const h = this.history;
    const hex = (1_000 + this.#index).toString(16).padStart(12, '0');
    return {
      id: `00000000-0000-4000-8000-${hex}`,
      userId: 1_000_000,
      tokenId: 100_000 + this.#index,
      token: this.#plant.token,
      tokenName: this.#plant.rule,
      virtualToken: `${this.#plant.token}-${h.port}`,
      virtualTokenName: null,
      subdomain: `planted${this.#index}.a.pinggy.link`,
      customdomain: null,
      mode: h.mode,
      modeUdp: h.mode_udp,
      port: h.port ?? 443,
      creationTimestamp: h.start_time,
      lastUpdateTimestamp: h.start_time,
    };
  }
}

/** The planted sessions that start on `day`, for patterns anchored at `anchorDay` (one or two days before it). */
export function plantedSessions(day: string, anchorDay: string): EmulatedSession[] {
  const out: EmulatedSession[] = [];
  PLANTS.forEach((plant, i) => {
    if (addDays(anchorDay, plant.day) === day)
      out.push(new PlantedSession(plant, i, Date.parse(`${day}T00:00:00Z`)));
  });
  return out;
}

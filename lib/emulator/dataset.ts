import { Rng, seedFrom } from './prng.ts';
import { type EmulatedUser, usersForSeed } from './users.ts';
import { formatTimestamp, ipv4, ipv6 } from './wireFormat.ts';

/** History record exactly as the seed's table 2.2 names it (type alias so it fits the loose zod type). */
export type WireHistoryRecord = {
  start_time: string;
  end_time: string;
  user_email: string;
  token_value: string | null;
  virtual_token_value: string | null;
  domains: string[];
  mode: string;
  mode_udp: string;
  client_ip: string;
  port: number | null;
};

/** Active session exactly as the seed's table 2.1 names it. */
export type WireActiveSession = {
  id: string;
  userId: number;
  tokenId: number;
  token: string | null;
  tokenName: string | null;
  virtualToken: string;
  virtualTokenName: string | null;
  subdomain: string;
  customdomain: string | null;
  mode: string;
  modeUdp: string;
  port: number;
  creationTimestamp: string;
  lastUpdateTimestamp: string;
};

/** One emulated tunnel session: both wire views plus what decides when it becomes visible. */
export interface EmulatedSession {
  /** `<day>#<index>`: unique, stable across runs. */
  id: string;
  startMs: number;
  endMs: number;
  /** Ingestion lag: the history row is hidden until `endMs + lagMs` (unless released early by drift). */
  lagMs: number;
  /** Stable pseudo-random sort key: the "unsorted but stable" order. */
  orderKey: number;
  history: WireHistoryRecord;
  active: WireActiveSession;
}

export interface DatasetOptions {
  users: number;
  /** Probability that an ordinary day has no sessions at all. */
  quietDayRate: number;
  normalMin: number;
  normalMax: number;
  /** One heavy day in every block of this many days. */
  heavyEveryDays: number;
  heavyMin: number;
  heavyMax: number;
  minSessionMs: number;
  maxSessionMs: number;
  /** Share of rows that arrive late (after an ingestion lag). */
  lateRate: number;
  maxLagMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY_MS = 24 * HOUR;

export const DEFAULT_DATASET: DatasetOptions = {
  users: 24,
  quietDayRate: 0.12,
  normalMin: 10,
  normalMax: 400,
  heavyEveryDays: 14,
  heavyMin: 2000,
  heavyMax: 4000,
  minSessionMs: MINUTE,
  maxSessionMs: 21 * DAY_MS,
  lateRate: 0.12,
  maxLagMs: 48 * HOUR,
};

export type DayKind = 'quiet' | 'normal' | 'heavy';

/** Whether a day is quiet, normal or heavy, and how many sessions start on it. */
export function dayProfile(
  seed: string | number,
  day: string,
  options: DatasetOptions,
): { kind: DayKind; count: number } {
  const dayIndex = Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
  const block = Math.floor(dayIndex / options.heavyEveryDays);
  const heavyAt = new Rng(seedFrom(seed, 'heavy', block)).int(0, options.heavyEveryDays - 1);
  const rng = new Rng(seedFrom(seed, 'profile', day));
  if (dayIndex - block * options.heavyEveryDays === heavyAt) {
    return { kind: 'heavy', count: rng.int(options.heavyMin, options.heavyMax) };
  }
  if (rng.chance(options.quietDayRate)) return { kind: 'quiet', count: 0 };
  const u = rng.next();
  const count = Math.round(options.normalMin * (options.normalMax / options.normalMin) ** u);
  return { kind: 'normal', count };
}

const usersCache = new Map<string, EmulatedUser[]>();

function usersFor(seed: string | number, count: number): EmulatedUser[] {
  const key = `${seed}|${count}`;
  let users = usersCache.get(key);
  if (!users) {
    users = usersForSeed(seed, count);
    usersCache.set(key, users);
  }
  return users;
}

/**
 * The sessions that START on UTC `day`, deterministic in (seed, day, options). Pure: visibility (ended,
 * ingestion lag, window) is decided by the caller with the clock, so old days can gain rows later.
 */
export function sessionsStartingOn(
  seed: string | number,
  day: string,
  options: DatasetOptions = DEFAULT_DATASET,
): EmulatedSession[] {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(dayStart)) throw new RangeError(`not a day: ${day}`);
  const { count } = dayProfile(seed, day, options);
  const users = usersFor(seed, options.users);
  const rng = new Rng(seedFrom(seed, 'sessions', day));
  const usedStarts = new Set<number>();
  const out: EmulatedSession[] = [];
  for (let i = 0; i < count; i++) {
    let offset = rng.int(0, DAY_MS - 1);
    while (usedStarts.has(offset)) offset = rng.int(0, DAY_MS - 1);
    usedStarts.add(offset);
    out.push(makeSession(rng, users, `${day}#${i}`, dayStart + offset, options));
  }
  return out;
}

const MODES = [
  ['http', 45],
  ['tcp', 22],
  ['tls', 10],
  ['tlstcp', 8],
  ['udp', 15],
] as const;

function makeSession(
  rng: Rng,
  users: EmulatedUser[],
  id: string,
  startMs: number,
  options: DatasetOptions,
): EmulatedSession {
  const user = rng.pick(users);
  const token = rng.pick(user.tokens);
  const kind = rng.weighted(MODES);
  const mode = kind === 'udp' ? 'tcp' : kind;
  const modeUdp = kind === 'udp' ? 'udp' : '';
  const port = kind === 'http' ? null : kind === 'tls' ? 443 : rng.int(10_000, 60_000);
  const activePort = port ?? 443;
  const virtual = user.virtualTokens.length > 0 && rng.chance(0.35) ? rng.pick(user.virtualTokens) : null;
  const tokenValue = (virtual && rng.chance(0.5)) || rng.chance(0.04) ? null : token.value;
  const virtualValue = virtual ? `${virtual.base}-${activePort}` : null;
  const host = rng.chars('abcdefghijklmnopqrstuvwxyz0123456789', 8);
  const subdomain = virtual ? `${virtual.host}.a.pinggy.link` : `${host}.a.pinggy.link`;
  const webLike = kind === 'http' || kind === 'tls';
  const customdomain =
    webLike && user.customDomains.length > 0 && rng.chance(0.4) ? rng.pick(user.customDomains) : null;
  const domains = rng.chance(0.06) ? [] : customdomain ? [customdomain, subdomain] : [subdomain];
  const clientIp = rng.chance(0.7) ? ipv4(rng) : ipv6(rng);
  // Log-spread durations skewed towards short: most last minutes, a few last weeks.
  const span = Math.log(options.maxSessionMs / options.minSessionMs);
  const durationMs = Math.round(options.minSessionMs * Math.exp(rng.next() ** 2.5 * span)) + rng.int(0, 999);
  const endMs = startMs + durationMs;
  const lagMs = rng.chance(options.lateRate) ? rng.int(MINUTE, options.maxLagMs) : 0;
  const start = formatTimestamp(startMs);
  return {
    id,
    startMs,
    endMs,
    lagMs,
    orderKey: rng.next(),
    history: {
      start_time: start,
      end_time: formatTimestamp(endMs),
      user_email: user.email,
      token_value: tokenValue,
      virtual_token_value: virtualValue,
      domains,
      mode,
      mode_udp: modeUdp,
      client_ip: `[${clientIp}]:${rng.int(1024, 65_535)}`,
      port,
    },
    active: {
      id: uuid(rng),
      userId: user.userId,
      tokenId: token.tokenId,
      token: virtual ? null : tokenValue,
      tokenName: virtual ? null : token.name,
      virtualToken: virtualValue ?? `${token.value}-${activePort}`,
      virtualTokenName: virtual ? virtual.name : null,
      subdomain,
      customdomain,
      mode,
      modeUdp,
      port: activePort,
      creationTimestamp: start,
      lastUpdateTimestamp: formatTimestamp(startMs + rng.int(200, 3000)),
    },
  };
}

function uuid(rng: Rng): string {
  const h = rng.chars('0123456789abcdef', 32);
  const variant = '89ab'[rng.int(0, 3)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

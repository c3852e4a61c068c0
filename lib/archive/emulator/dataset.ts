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

/**
 * One emulated tunnel session: what decides when it becomes visible, plus both wire views. The wire
 * objects are built on demand (replayed from the saved random state), so a day of a million sessions
 * costs a few numbers per session until a page actually shows them.
 */
export interface EmulatedSession {
  /** `<day>#<index>`: unique, stable across runs. */
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  /** Ingestion lag: the history row is hidden until `endMs + lagMs` (unless released early by drift). */
  readonly lagMs: number;
  /** Stable pseudo-random sort key: the "unsorted but stable" order. */
  readonly orderKey: number;
  /** The history record (a fresh object on every read). */
  readonly history: WireHistoryRecord;
  /** The active-list entry (a fresh object on every read). */
  readonly active: WireActiveSession;
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
  /** Multiplies every day's volume (the emulator's `--scale`); the first sessions of a day stay the same. */
  scale: number;
  /**
   * One long-lived tunnel (open `longMinMs..longMaxMs`) starts in every block of this many days, on the
   * block's first non-quiet day; 0 turns them off. Longer than the window, they never reach history
   * while they run: only the active list shows them.
   */
  longEveryDays: number;
  longMinMs: number;
  longMaxMs: number;
  /**
   * "Office" traffic (off by default): each token connects from one fixed address of its owner's
   * network, tunnels start in working hours (08:00-17:00 UTC), no UDP, no virtual tokens, no custom
   * domains. The normal traffic then trips none of the detection rules (`npm start`'s demo).
   */
  office?: boolean;
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
  scale: 1,
  longEveryDays: 5,
  longMinMs: 70 * DAY_MS,
  longMaxMs: 90 * DAY_MS,
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
  const scale = options.scale ?? 1;
  if (dayIndex - block * options.heavyEveryDays === heavyAt) {
    return { kind: 'heavy', count: Math.round(rng.int(options.heavyMin, options.heavyMax) * scale) };
  }
  if (rng.chance(options.quietDayRate)) return { kind: 'quiet', count: 0 };
  const u = rng.next();
  const count = Math.round(options.normalMin * (options.normalMax / options.normalMin) ** u);
  return { kind: 'normal', count: Math.round(count * scale) };
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
 * `limit` generates only the first sessions (the same ones a full call returns first).
 */
export function sessionsStartingOn(
  seed: string | number,
  day: string,
  options: DatasetOptions = DEFAULT_DATASET,
  limit = Number.POSITIVE_INFINITY,
): EmulatedSession[] {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(dayStart)) throw new RangeError(`not a day: ${day}`);
  const { count } = dayProfile(seed, day, options);
  const users = usersFor(seed, options.users);
  const rng = new Rng(seedFrom(seed, 'sessions', day));
  const usedStarts = new Set<number>();
  const out: LazySession[] = [];
  const n = Math.min(count, limit);
  const office = options.office === true;
  const draw = () => (office ? officeHours(rng.int(0, DAY_MS - 1)) : rng.int(0, DAY_MS - 1));
  for (let i = 0; i < n; i++) {
    let offset = draw();
    while (usedStarts.has(offset)) offset = draw();
    usedStarts.add(offset);
    out.push(new LazySession(rng, users, `${day}#${i}`, dayStart + offset, options));
  }
  const first = out[0];
  if (first !== undefined && isLongDay(seed, day, options)) {
    const long = new Rng(seedFrom(seed, 'long', day));
    first.endMs = first.startMs + long.int(options.longMinMs, options.longMaxMs);
    first.lagMs = 0;
  }
  return out;
}

/** An offset into the day mapped into office hours, 08:00 to 17:00 UTC. */
function officeHours(offset: number): number {
  return 8 * HOUR + (offset % (9 * HOUR));
}

/** The address a token connects from in office traffic: one per token, in its owner's /24. */
function officeAddress(users: readonly EmulatedUser[], user: EmulatedUser, token: { value: string }): string {
  return `198.18.${users.indexOf(user) % 256}.${10 + user.tokens.findIndex((t) => t.value === token.value)}`;
}

/** Whether `day` is its block's long-session day: the first day of the block with any sessions. */
export function isLongDay(seed: string | number, day: string, options: DatasetOptions): boolean {
  const every = options.longEveryDays ?? 0;
  if (every <= 0) return false;
  const dayIndex = Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
  const blockStart = dayIndex - (((dayIndex % every) + every) % every);
  for (let i = blockStart; i < blockStart + every; i++) {
    const d = new Date(i * DAY_MS).toISOString().slice(0, 10);
    if (dayProfile(seed, d, options).count > 0) return i === dayIndex;
  }
  return false;
}

/** Keeps the numbers that decide visibility and replays the random stream to build the wire views. */
class LazySession implements EmulatedSession {
  readonly id: string;
  readonly startMs: number;
  endMs: number;
  lagMs: number;
  readonly orderKey: number;
  readonly #state: number;
  readonly #users: EmulatedUser[];
  readonly #options: DatasetOptions;

  constructor(rng: Rng, users: EmulatedUser[], id: string, startMs: number, options: DatasetOptions) {
    this.#state = rng.state;
    this.#users = users;
    this.#options = options;
    const drawn = drawSession(rng, users, startMs, options, null);
    this.id = id;
    this.startMs = startMs;
    this.endMs = drawn.endMs;
    this.lagMs = drawn.lagMs;
    this.orderKey = drawn.orderKey;
  }

  get history(): WireHistoryRecord {
    return this.#wire(false).history;
  }

  get active(): WireActiveSession {
    const { active } = this.#wire(true);
    if (active === undefined) throw new Error('unreachable: replay builds the active view when asked');
    return active;
  }

  #wire(withActive: boolean): Wire {
    const replay = new Rng(this.#state);
    const { wire } = drawSession(replay, this.#users, this.startMs, this.#options, this.endMs, withActive);
    if (wire === undefined) throw new Error('unreachable: replay builds the wire views');
    return wire;
  }
}

/** The wire views; `active` only when asked for (a history page needs none). */
type Wire = { history: WireHistoryRecord; active?: WireActiveSession };

const MODES = [
  ['http', 45],
  ['tcp', 22],
  ['tls', 10],
  ['tlstcp', 8],
  ['udp', 15],
] as const;

/**
 * Draws one session from `rng`. With `endMs === null` only the numbers are computed (strings are
 * skipped draw for draw, so the stream stays aligned); with the final `endMs` the wire views are built.
 */
function drawSession(
  rng: Rng,
  users: EmulatedUser[],
  startMs: number,
  options: DatasetOptions,
  endMsFinal: number | null,
  withActive = true,
): { endMs: number; lagMs: number; orderKey: number; wire?: Wire } {
  const full = endMsFinal !== null;
  const user = rng.pick(users);
  const token = rng.pick(user.tokens);
  const office = options.office === true;
  const kind = rng.weighted(MODES);
  const mode = kind === 'udp' ? 'tcp' : kind;
  const modeUdp = kind === 'udp' && !office ? 'udp' : '';
  const port = kind === 'http' ? null : kind === 'tls' ? 443 : rng.int(10_000, 60_000);
  const activePort = port ?? 443;
  const virtual =
    !office && user.virtualTokens.length > 0 && rng.chance(0.35) ? rng.pick(user.virtualTokens) : null;
  const tokenValue = (virtual && rng.chance(0.5)) || rng.chance(0.04) ? null : token.value;
  const host = full ? rng.chars('abcdefghijklmnopqrstuvwxyz0123456789', 8) : skip(rng, 8);
  const webLike = kind === 'http' || kind === 'tls';
  const customdomain =
    webLike && !office && user.customDomains.length > 0 && rng.chance(0.4)
      ? rng.pick(user.customDomains)
      : null;
  const noDomains = rng.chance(0.06);
  const v4 = rng.chance(0.7);
  let clientIp = '';
  if (full) clientIp = v4 ? ipv4(rng) : ipv6(rng);
  else if (v4) rng.skip(4);
  else rng.skip(rng.chance(0.5) ? 1 : 7);
  if (office) clientIp = full ? officeAddress(users, user, token) : '';
  // Log-spread durations skewed towards short: most last minutes, a few last weeks.
  const span = Math.log(options.maxSessionMs / options.minSessionMs);
  const durationMs = Math.round(options.minSessionMs * Math.exp(rng.next() ** 2.5 * span)) + rng.int(0, 999);
  const endMs = startMs + durationMs;
  const lagMs = rng.chance(options.lateRate) ? rng.int(MINUTE, options.maxLagMs) : 0;
  const orderKey = rng.next();
  if (!full) {
    rng.skip(TRAILING_DRAWS);
    return { endMs, lagMs, orderKey };
  }
  const virtualValue = virtual ? `${virtual.base}-${activePort}` : null;
  const subdomain = virtual ? `${virtual.host}.a.pinggy.link` : `${host}.a.pinggy.link`;
  const domains = noDomains ? [] : customdomain ? [customdomain, subdomain] : [subdomain];
  const start = formatTimestamp(startMs);
  const history: WireHistoryRecord = {
    start_time: start,
    end_time: formatTimestamp(endMsFinal),
    user_email: user.email,
    token_value: tokenValue,
    virtual_token_value: virtualValue,
    domains,
    mode,
    mode_udp: modeUdp,
    client_ip: `[${clientIp}]:${rng.int(1024, 65_535)}`,
    port,
  };
  if (!withActive) return { endMs, lagMs, orderKey, wire: { history } };
  const active: WireActiveSession = {
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
  };
  return { endMs, lagMs, orderKey, wire: { history, active } };
}

/** Draws the wire views take after `orderKey`: the client port, the uuid (32 + 1) and the update delay. */
const TRAILING_DRAWS = 1 + 33 + 1;

function skip(rng: Rng, n: number): string {
  rng.skip(n);
  return '';
}

function uuid(rng: Rng): string {
  const h = rng.chars('0123456789abcdef', 32);
  const variant = '89ab'[rng.int(0, 3)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

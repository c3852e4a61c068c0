import type { ActiveSession, HistoryPage } from '../lib/archive/records/schemas.ts';
import { parseHistoryPage } from '../lib/archive/upstream/parseResponses.ts';
import type { RequestOptions, UpstreamApi } from '../lib/archive/upstream/upstreamApi.ts';
import type { Clock } from '../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../lib/foundation/clock/day.ts';
import { ArchiverError } from '../lib/foundation/errors/archiverError.ts';

export interface ScriptedUpstreamOptions {
  clock: Clock;
  /** Items per day, as the server would return them (any JSON: bad items become `rejected`). */
  days: Map<Day, unknown[]>;
  /** The server's page-size cap (echoed in `size`). Default 2000. */
  maxPageSize?: number;
  /** Days the server keeps, counted from its own today: older days answer 400. Default 60. */
  windowDays?: number;
  /** The server's calendar runs this many days ahead of UTC (a non-UTC day boundary). Default 0. */
  serverDayOffset?: number;
  /** `floor-pages`: totalElements rounded down to whole pages; a number: the count lags by that many rows. */
  staleTotals?: 'floor-pages' | number;
  /** `totalPages` as reported, whatever the rows (an absurd value tests the pages-per-day cap). */
  totalPagesOverride?: number;
  /** Reshuffle the day's order on every request (seeded), as an unsorted Spring query may. Default true. */
  reshuffle?: boolean;
  /** Called before each history request; may throw (a fault) or advance the clock (a slow server). */
  beforeRequest?: (day: Day, page: number) => void | Promise<void>;
  seed?: number;
}

/**
 * An in-memory stand-in for the tunnel session API (the `UpstreamApi` port) whose every page is built from
 * a script: the records of each day and how the server lies about them. Pages go through the real page
 * parser, so validation is the production one.
 *
 * Why not the emulator (lib/archive/emulator): engine tests need exactly these records for exactly this day (any
 * JSON, bad items included), a hook before every page request that can advance a fake clock or fail one
 * chosen page, and no HTTP or server process, so hundreds of runs in a property test stay deterministic
 * and fast. The emulator serves a generated dataset over HTTP with faults drawn at rates; its fault knobs
 * cannot pick "page 3 of the oldest day costs 10 s".
 */
export class ScriptedUpstream implements UpstreamApi {
  readonly requests: { day: Day; page: number; size: number }[] = [];
  readonly #o: ScriptedUpstreamOptions;
  #rng: number;

  constructor(options: ScriptedUpstreamOptions) {
    this.#o = options;
    this.#rng = options.seed ?? 1;
  }

  async listActive(_options?: RequestOptions): Promise<ActiveSession[]> {
    return [];
  }

  async historyPage(
    from: Day,
    to: Day,
    page: number,
    size: number,
    options?: RequestOptions,
  ): Promise<HistoryPage> {
    if (options?.signal?.aborted) throw new ArchiverError('DEADLINE', 'aborted (deadline)');
    if (from !== to) throw new Error('the scripted upstream serves one day at a time');
    this.requests.push({ day: from, page, size });
    await this.#o.beforeRequest?.(from, page);
    if (options?.signal?.aborted) throw new ArchiverError('DEADLINE', 'aborted (deadline)');
    const serverToday = addDays(toDay(this.#o.clock.now()), this.#o.serverDayOffset ?? 0);
    const oldest = addDays(serverToday, -((this.#o.windowDays ?? 60) - 1));
    if (from < oldest) {
      throw new ArchiverError(
        'OUTSIDE_WINDOW',
        `400: ${from} is older than the server's window (${oldest})`,
        {
          status: 400,
        },
      );
    }
    const echoed = Math.min(size, this.#o.maxPageSize ?? 2000);
    const all = [...(this.#o.days.get(from) ?? [])];
    if (this.#o.reshuffle ?? true) this.#shuffle(all);
    const stale = this.#o.staleTotals;
    const total =
      stale === 'floor-pages'
        ? Math.floor(all.length / echoed) * echoed
        : Math.max(0, all.length - (typeof stale === 'number' ? stale : 0));
    // Fresh items each answer, as a parsed response's are: the walk never holds the script's own objects.
    const content = all.slice(page * echoed, (page + 1) * echoed).map(freshItem);
    const totalPages = this.#o.totalPagesOverride ?? Math.ceil(total / echoed);
    const parsed = parseHistoryPage(
      {
        totalElements: total,
        totalPages,
        size: echoed,
        content,
        number: page,
        sort: { empty: true, sorted: false, unsorted: true },
        pageable: {
          pageNumber: page,
          pageSize: echoed,
          sort: { empty: true, sorted: false, unsorted: true },
          offset: page * echoed,
          paged: true,
          unpaged: false,
        },
        numberOfElements: content.length,
        first: page === 0,
        last: page >= totalPages - 1,
        empty: content.length === 0,
      },
      this.#o.clock.now(),
    );
    if (!parsed.ok) throw new Error(`scripted page is malformed: ${parsed.summary}`);
    return parsed.value;
  }

  /**
   * Fisher–Yates with mulberry32. (An LCG mod 2^31 taken `% (i + 1)` uses its periodic low bits: for some
   * seeds successive shuffles kept a third of a day's rows out of every page a walk asked for, a server no
   * client could read whole, which the walk then rightly reported as incomplete.)
   */
  #shuffle<T>(xs: T[]): void {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(this.#random() * (i + 1));
      [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
    }
  }

  #random(): number {
    this.#rng = (this.#rng + 0x6d2b79f5) | 0;
    let t = Math.imul(this.#rng ^ (this.#rng >>> 15), 1 | this.#rng);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
}

/** A valid history record that started at `start` (ISO) and lasted `minutes`. */
export function sessionRecord(start: string, n: number, minutes = 30): Record<string, unknown> {
  const s = Date.parse(start);
  return {
    start_time: new Date(s).toISOString().replace('Z', '+00:00'),
    end_time: new Date(s + minutes * 60_000).toISOString().replace('Z', '+00:00'),
    user_email: `user${n % 7}@example.com`,
    token_value: `TOKEN${String(n).padStart(4, '0')}`,
    virtual_token_value: null,
    domains: [`d${n}.a.pinggy.link`],
    mode: 'http',
    mode_udp: '',
    client_ip: `[10.0.${(n >> 8) & 255}.${n & 255}]:${1024 + (n % 60000)}`,
    port: null,
  };
}

/** `count` records starting on `day`, spread over the day. */
export function dayOfRecords(day: Day, count: number, offset = 0): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) =>
    sessionRecord(
      new Date(Date.parse(`${day}T00:00:00Z`) + ((i * 37_000) % 86_000_000)).toISOString(),
      offset + i,
    ),
  );
}

/** A plain object item copied (its own keys in their order, an array value copied too); anything else as it is. */
function freshItem(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Object.getPrototypeOf(item) !== Object.prototype)
    return item;
  // `fromEntries` defines each key as an own property: a key named `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(item).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value]),
  );
}

import { addDays, dayRange, toDay } from '../../foundation/index.ts';
import { type DatasetOptions, type EmulatedSession, isLongDay, sessionsStartingOn } from './dataset.ts';
import { plantedSessions } from './plantedSessions.ts';
import { type PoisonConfig, type PoisonItem, poisonFor } from './poison.ts';
import { teamSessionsOn } from './teamSessionsOn.ts';

const DAY_MS = 86_400_000;
/** Sessions kept generated at once (they are a few numbers each; the wire views are built on demand). */
const CACHE_SESSIONS = 2_000_000;

/**
 * The emulated service's stored sessions: generated per day on demand (cached, bounded by session
 * count), plus the mutable bit of state the dataset cannot derive — which late rows drift has released.
 */
/** The emulator's ordinary traffic profiles (`emulator --traffic`). */
export const EMULATOR_TRAFFIC = ['default', 'team'] as const;
export type EmulatorTraffic = (typeof EMULATOR_TRAFFIC)[number];

export class SessionArchive {
  readonly #seed: string | number;
  readonly #options: DatasetOptions;
  readonly #poison: PoisonConfig | undefined;
  /** Per day: the sessions in stable (orderKey) order. */
  readonly #days = new Map<string, EmulatedSession[]>();
  #cached = 0;
  readonly #poisonDays = new Map<string, PoisonItem[]>();
  readonly #released = new Set<string>();
  /** The last few `visible` answers: a page walk asks the same question once per page. */
  readonly #recentVisible: { key: string; fromMs: number; untilMs: number; rows: EmulatedSession[] }[] = [];

  /** Plant one pattern per starter detection rule on the two days before this day (`plantedSessions`). */
  readonly #plantBefore: string | undefined;

  /** The ordinary traffic: the default dataset, or the team profile (`teamSessionsOn`). */
  readonly #traffic: EmulatorTraffic;

  constructor(
    seed: string | number,
    options: DatasetOptions,
    poison?: PoisonConfig,
    plantBefore?: string,
    traffic: EmulatorTraffic = 'default',
  ) {
    this.#traffic = traffic;
    this.#plantBefore = plantBefore;
    this.#seed = seed;
    this.#options = options;
    this.#poison = poison;
  }

  /** All sessions that start on `day`, visible or not, in stable order. */
  sessions(day: string): EmulatedSession[] {
    let sessions = this.#days.get(day);
    if (!sessions) {
      const planted = this.#plantBefore === undefined ? [] : plantedSessions(day, this.#plantBefore);
      sessions = byOrderKey([...this.#ordinary(day), ...planted]);
      while (this.#days.size > 0 && this.#cached + sessions.length > CACHE_SESSIONS) {
        const oldest = this.#days.keys().next().value!;
        this.#cached -= this.#days.get(oldest)!.length;
        this.#days.delete(oldest);
      }
      this.#days.set(day, sessions);
      this.#cached += sessions.length;
    }
    return sessions;
  }

  /** The poison items injected into `day`'s history (none unless configured). */
  poison(day: string): PoisonItem[] {
    if (this.#poison === undefined) return [];
    let items = this.#poisonDays.get(day);
    if (!items) {
      items = poisonFor(this.#seed, day, sessionsStartingOn(this.#seed, day, this.#options), this.#poison);
      if (this.#poisonDays.size > 1000) this.#poisonDays.clear();
      this.#poisonDays.set(day, items);
    }
    return items;
  }

  /** A history row is visible once its session ended and its ingestion lag passed (or drift released it). */
  isVisible(session: EmulatedSession, atMs: number): boolean {
    if (session.endMs > atMs) return false;
    return session.endMs + session.lagMs <= atMs || this.#released.has(session.id);
  }

  /**
   * Visible rows of the days `from..to` in stable order per day, never past the day of `atMs`. The
   * answer is reused while it cannot change (until the next session of those days ends or clears its
   * lag, with no new release), so a walk of a huge settled day scans it once, even on a real clock.
   * The returned array is shared: do not mutate it.
   */
  visible(from: string, to: string, atMs: number): readonly EmulatedSession[] {
    const days = this.#queryDays(from, to, atMs);
    const key = `${days[0] ?? ''}|${days.at(-1) ?? ''}|${this.#released.size}`;
    const hit = this.#recentVisible.find((e) => e.key === key && atMs >= e.fromMs && atMs < e.untilMs);
    if (hit !== undefined) return hit.rows;
    const out: EmulatedSession[] = [];
    const released = this.#released;
    let untilMs = Number.POSITIVE_INFINITY;
    for (const day of days) {
      for (const s of this.sessions(day)) {
        if (s.endMs <= atMs && (s.endMs + s.lagMs <= atMs || released.has(s.id))) out.push(s);
        else {
          const next = s.endMs > atMs ? s.endMs : s.endMs + s.lagMs;
          if (next < untilMs) untilMs = next;
        }
      }
    }
    // A later instant may also reach a new day (today moves on): the answer holds until midnight at most.
    const midnight = (Math.floor(atMs / DAY_MS) + 1) * DAY_MS;
    if (midnight < untilMs) untilMs = midnight;
    if (this.#recentVisible.length >= 4) this.#recentVisible.shift();
    this.#recentVisible.push({ key, fromMs: atMs, untilMs, rows: out });
    return out;
  }

  /** Poison items of the days `from..to` (a day shows its poison once it has begun). */
  poisonIn(from: string, to: string, atMs: number): PoisonItem[] {
    if (this.#poison === undefined) return [];
    return this.#queryDays(from, to, atMs).flatMap((day) => this.poison(day));
  }

  /**
   * Releases up to `n` rows of `from..to` that ended but are still held back by ingestion lag, in a
   * stable order; returns how many were released. This is how rows "appear" in the middle of a walk.
   */
  release(from: string, to: string, n: number, atMs: number): number {
    if (n <= 0) return 0;
    const pending: EmulatedSession[] = [];
    for (const day of this.#queryDays(from, to, atMs)) {
      for (const s of this.sessions(day)) if (s.endMs <= atMs && !this.isVisible(s, atMs)) pending.push(s);
    }
    pending.sort((a, b) => a.orderKey - b.orderKey);
    const chosen = pending.slice(0, n);
    for (const s of chosen) this.#released.add(s.id);
    return chosen.length;
  }

  /**
   * Sessions running at `atMs`: started at or before it and not yet ended, ordered by start. Ordinary
   * sessions are looked up as far back as they can last; older days only for their long-lived tunnel.
   */
  active(atMs: number): EmulatedSession[] {
    const today = toDay(new Date(atMs));
    const back = Math.ceil(this.#options.maxSessionMs / DAY_MS) + 1;
    const longBack = Math.ceil(this.#options.longMaxMs / DAY_MS) + 1;
    const out: EmulatedSession[] = [];
    const running = (s: EmulatedSession) => s.startMs <= atMs && s.endMs > atMs;
    if (this.#traffic === 'default' && this.#options.longEveryDays > 0) {
      for (const day of dayRange(addDays(today, -longBack), addDays(today, -back - 1))) {
        if (!isLongDay(this.#seed, day, this.#options)) continue;
        for (const s of sessionsStartingOn(this.#seed, day, this.#options, 1)) if (running(s)) out.push(s);
      }
    }
    for (const day of dayRange(addDays(today, -back), today)) {
      for (const s of this.sessions(day)) if (running(s)) out.push(s);
    }
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  /** The ordinary sessions that start on `day`. */
  #ordinary(day: string): EmulatedSession[] {
    return this.#traffic === 'team'
      ? teamSessionsOn(this.#seed, day)
      : sessionsStartingOn(this.#seed, day, this.#options);
  }

  #queryDays(from: string, to: string, atMs: number): string[] {
    const today = toDay(new Date(atMs));
    const last = to < today ? to : today;
    return from > last ? [] : dayRange(from, last);
  }
}

/**
 * Sorts by `orderKey` without a comparator: `orderKey` is a 32-bit integer over 2^32, so key and index
 * pack exactly into one double and a native Float64Array sort does the work (10x faster for a 1M day).
 */
function byOrderKey(sessions: EmulatedSession[]): EmulatedSession[] {
  const n = sessions.length;
  if (n >= 2 ** 21) return sessions.sort((a, b) => a.orderKey - b.orderKey);
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) packed[i] = sessions[i]!.orderKey * 4_294_967_296 * 2_097_152 + i;
  packed.sort();
  const out = new Array<EmulatedSession>(n);
  for (let i = 0; i < n; i++) out[i] = sessions[packed[i]! % 2_097_152]!;
  return out;
}

import { addDays, dayRange, toDay } from '../clock/day.ts';
import { type DatasetOptions, type EmulatedSession, sessionsStartingOn } from './dataset.ts';

const DAY_MS = 86_400_000;
const CACHE_DAYS = 400;

/**
 * The emulated service's stored sessions: generated per day on demand (cached), plus the mutable
 * bit of state the dataset cannot derive — which late rows drift has already released.
 */
export class SessionArchive {
  readonly #seed: string | number;
  readonly #options: DatasetOptions;
  readonly #days = new Map<string, EmulatedSession[]>();
  readonly #released = new Set<string>();

  constructor(seed: string | number, options: DatasetOptions) {
    this.#seed = seed;
    this.#options = options;
  }

  /** All sessions that start on `day`, visible or not. */
  sessions(day: string): EmulatedSession[] {
    let sessions = this.#days.get(day);
    if (!sessions) {
      sessions = sessionsStartingOn(this.#seed, day, this.#options);
      if (this.#days.size >= CACHE_DAYS) this.#days.delete(this.#days.keys().next().value!);
      this.#days.set(day, sessions);
    }
    return sessions;
  }

  /** A history row is visible once its session ended and its ingestion lag passed (or drift released it). */
  isVisible(session: EmulatedSession, atMs: number): boolean {
    if (session.endMs > atMs) return false;
    return session.endMs + session.lagMs <= atMs || this.#released.has(session.id);
  }

  /** Visible rows of the days `from..to`, never past the day of `atMs` (later days have nothing ended). */
  visible(from: string, to: string, atMs: number): EmulatedSession[] {
    const today = toDay(new Date(atMs));
    const last = to < today ? to : today;
    const out: EmulatedSession[] = [];
    if (from > last) return out;
    for (const day of dayRange(from, last)) {
      for (const s of this.sessions(day)) if (this.isVisible(s, atMs)) out.push(s);
    }
    return out;
  }

  /**
   * Releases up to `n` rows of `from..to` that ended but are still held back by ingestion lag, in a
   * stable order; returns how many were released. This is how rows "appear" in the middle of a walk.
   */
  release(from: string, to: string, n: number, atMs: number): number {
    if (n <= 0) return 0;
    const today = toDay(new Date(atMs));
    const last = to < today ? to : today;
    if (from > last) return 0;
    const pending: EmulatedSession[] = [];
    for (const day of dayRange(from, last)) {
      for (const s of this.sessions(day)) if (s.endMs <= atMs && !this.isVisible(s, atMs)) pending.push(s);
    }
    pending.sort((a, b) => a.orderKey - b.orderKey);
    const chosen = pending.slice(0, n);
    for (const s of chosen) this.#released.add(s.id);
    return chosen.length;
  }

  /** Sessions running at `atMs`: started at or before it and not yet ended. */
  active(atMs: number): EmulatedSession[] {
    const today = toDay(new Date(atMs));
    const back = Math.ceil(this.#options.maxSessionMs / DAY_MS) + 1;
    const out: EmulatedSession[] = [];
    for (const day of dayRange(addDays(today, -back), today)) {
      for (const s of this.sessions(day)) if (s.startMs <= atMs && s.endMs > atMs) out.push(s);
    }
    return out;
  }
}

/** The emulator's notion of "now": it decides which sessions have ended and where the 60-day window starts. */
export interface EmulatorClock {
  now(): Date;
}

/** A clock that only moves when told: tests simulate weeks by calling `advance`. */
export interface FixedClock extends EmulatorClock {
  set(t: Date | string | number): void;
  advance(ms: number): void;
}

export interface AcceleratedClockOptions {
  /** Emulated time at creation. */
  start: Date | string | number;
  /** Emulated milliseconds per real millisecond (e.g. 3600 = one hour per second). */
  rate: number;
  /** Real time source, injectable for tests; defaults to `Date.now`. */
  realNow?: () => number;
}

/** Wall-clock time. */
export function realClock(): EmulatorClock {
  return { now: () => new Date() };
}

/** A clock frozen at `t` until `set` or `advance` moves it. */
export function fixedClock(t: Date | string | number): FixedClock {
  let ms = toMs(t);
  return {
    now: () => new Date(ms),
    set: (next) => {
      ms = toMs(next);
    },
    advance: (delta) => {
      ms += delta;
    },
  };
}

/** Emulated time = start + (real elapsed) * rate; lets a demo live through days in minutes. */
export function acceleratedClock(options: AcceleratedClockOptions): EmulatorClock {
  const realNow = options.realNow ?? Date.now;
  const start = toMs(options.start);
  const real0 = realNow();
  if (!(options.rate > 0) || !Number.isFinite(options.rate))
    throw new RangeError('rate must be a positive number');
  return { now: () => new Date(start + (realNow() - real0) * options.rate) };
}

function toMs(t: Date | string | number): number {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t);
  if (Number.isNaN(ms)) throw new RangeError(`not a valid time: ${String(t)}`);
  return ms;
}

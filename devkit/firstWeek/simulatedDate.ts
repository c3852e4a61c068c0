import type { HostClientPlugin } from '../../functions/shared/hostClientPlugins.ts';

/** The process's clock moved to simulated instants: see {@link installSimulatedDate}. */
export interface SimulatedClock {
  /** From now on `Date` reads `at`, moving on with real time. */
  set(at: Date | number): void;
  now(): Date;
  /** The real time, whatever the simulation says. */
  realNow(): number;
  /** Puts the real `Date` back. */
  restore(): void;
}

/**
 * Replaces the global `Date` so that `Date.now()` and `new Date()` read a simulated instant that moves on
 * with real time (`set` jumps it), for a process that runs a week in minutes: a bundle in its container,
 * and the stand-ins it calls, which judge a request's date against their own (S3's 15 minutes of skew).
 * A `Date` built from a value is the real one's.
 */
export function installSimulatedDate(): SimulatedClock {
  const RealDate = Date;
  let offset = 0;
  class SimulatedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as [number]));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = SimulatedDate as DateConstructor;
  return {
    set: (at) => {
      offset = (typeof at === 'number' ? at : at.getTime()) - RealDate.now();
    },
    now: () => new RealDate(RealDate.now() + offset),
    realNow: () => RealDate.now(),
    restore: () => {
      globalThis.Date = RealDate;
    },
  };
}

/**
 * An AWS client plugin that hides a response's `Date` header from the client: the SDK would otherwise take
 * a stand-in's real-time `Date` (Node's HTTP server writes it from its own clock) as clock skew, and sign
 * every later request in real time rather than in the simulation's.
 */
export const noClockCorrection: HostClientPlugin = {
  applyToStack(stack) {
    stack.add(
      (next) => async (args) => {
        const result = await next(args);
        const headers = (result.response as { headers?: Record<string, string> }).headers;
        if (headers) delete headers.date;
        return result;
      },
      { step: 'deserialize', name: 'noClockCorrection' },
    );
  },
};

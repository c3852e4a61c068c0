import { stat } from 'node:fs/promises';
import type { ManualClock } from '../../../lib/foundation/clock/clock.ts';

/** What a call of each priced method costs in simulated ms, from the bytes it carries (uploads, puts). */
export type CallCosts = Readonly<Record<string, (bytes: number) => number>>;

/**
 * A store whose calls take simulated time: before each call of a method `costs` prices, `clock` moves on by
 * that many ms, as a slow store (or a starved process) would take them. Wraps any port fake (the object
 * store, the state store); the bytes of `put` and `putFile` are what the call carries, so a commit's time
 * follows its size. Nothing else changes: the calls still reach `inner`.
 */
export function timedStore<T extends object>(inner: T, clock: ManualClock, costs: CallCosts): T {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const cost = typeof prop === 'string' ? costs[prop] : undefined;
      // Methods run on the fake itself (its private fields), priced or not.
      if (!cost) return value.bind(target);
      return async (...args: unknown[]) => {
        clock.advance(cost(await bytesOf(prop as string, args)));
        return value.apply(target, args);
      };
    },
  });
}

async function bytesOf(op: string, args: unknown[]): Promise<number> {
  if (op === 'putFile' && typeof args[1] === 'string') return (await stat(args[1])).size;
  const body = args[1];
  if (op === 'put' && typeof body === 'string') return body.length;
  if (op === 'put' && body instanceof Uint8Array) return body.byteLength;
  return 0;
}

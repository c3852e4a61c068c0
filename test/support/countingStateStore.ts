import type { StateStore } from '../../lib/archive/state/statePorts.ts';

/** Calls by method of a state store, and the items its listings returned (a get costs its call alone). */
export interface StateCounts {
  calls: number;
  byMethod: Record<string, number>;
  itemsListed: number;
}

/**
 * A state store that counts what goes through it: every call of a method, and the items each listing
 * (`list*`) returned, which grow with the archive's history. `reset()` starts a new count.
 */
export function countingStateStore(inner: StateStore): {
  state: StateStore;
  counts: StateCounts;
  reset(): void;
} {
  const counts: StateCounts = { calls: 0, byMethod: {}, itemsListed: 0 };
  const state = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const name = String(property);
        counts.calls++;
        counts.byMethod[name] = (counts.byMethod[name] ?? 0) + 1;
        const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (name.startsWith('list') && Array.isArray(out)) counts.itemsListed += out.length;
        return out;
      };
    },
  });
  return {
    state,
    counts,
    reset: () => {
      counts.calls = 0;
      counts.byMethod = {};
      counts.itemsListed = 0;
    },
  };
}

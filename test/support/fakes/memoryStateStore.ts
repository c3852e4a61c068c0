import { FaultPlan } from '../../../devkit/fakes/faultPlan.ts';
import { type Lease, leaseSchema } from '../../../lib/archive/state/lease.ts';
import { LEASE_PK } from '../../../lib/archive/state/leaseConcern.ts';
import { stateConcerns } from '../../../lib/archive/state/stateConcerns.ts';
import type { StateStore } from '../../../lib/archive/state/statePorts.ts';
import { decodeItem } from '../../../lib/archive/state/versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from '../../../lib/archive/state/versionedItems.ts';
import { MemoryVersionedItems } from './memoryVersionedItems.ts';

/** The datasets a partition manifest can belong to (shared contract; absent = history). */
export type PartitionDataset = 'history' | 'active';

export interface MemoryStateStoreOptions {
  /** Fault plan shared with other fakes (default: none). */
  faults?: FaultPlan;
  /** Label of this fake in the plan (default `state`). */
  name?: string;
}

type Op = Exclude<keyof StateStore, 'close'>;

/** The calls the constructor installs: every {@link StateStore} method, each run under the fault plan. */
const StateStoreCalls = class {} as unknown as new () => Pick<StateStore, Op>;

/**
 * The primitive as one store call sees it, each time the fault plan runs that call: a replay (a
 * `lostResponse` in `retry` mode, the SDK's retry of a request whose answer was lost) re-sends what the
 * first try sent, so it sees what the first try read until its first write, and that write meets the
 * changed store (a conditional put then fails with `CONFLICT`, which the concern settles as on DynamoDB).
 */
function replayable(items: VersionedItems): () => VersionedItems {
  const seen: (VersionedItem | undefined)[] = [];
  let tries = 0;
  return () => {
    const replay = tries++ > 0;
    let read = 0;
    let wrote = false;
    return {
      where: items.where,
      get: async (pk) => {
        if (wrote) return items.get(pk);
        if (replay && read < seen.length) return seen[read++];
        const item = await items.get(pk);
        if (!replay) seen.push(item);
        return item;
      },
      put: (pk, version, data, bytes) => {
        wrote = true;
        return items.put(pk, version, data, bytes);
      },
      delete: (pk) => {
        wrote = true;
        return items.delete(pk);
      },
      getMany: (pks) => items.getMany(pks),
      query: (prefix) => items.query(prefix),
    };
  };
}

/**
 * In-memory {@link StateStore}: the same concerns as `createDynamoStateStore` (`stateConcerns`: manifests,
 * day state, META, the lease, the live state) on the in-memory versioned-item primitive instead of
 * DynamoDB's, so the fake cannot drift from the adapter. Every call goes through a {@link FaultPlan}, so
 * tests can lose responses, fail calls or crash.
 */
export class MemoryStateStore extends StateStoreCalls implements StateStore {
  /** Replace to change the faults of later calls (e.g. a fresh plan for the next "process"). */
  faults: FaultPlan;
  readonly name: string;
  readonly #items = new MemoryVersionedItems();

  constructor(options: MemoryStateStoreOptions = {}) {
    super();
    this.faults = options.faults ?? FaultPlan.none();
    this.name = options.name ?? 'state';
    // Every StateStore call, each under the fault plan (own properties: a test may spread or replace one).
    for (const op of Object.keys(stateConcerns(this.#items)) as Op[]) {
      (this as Record<Op, unknown>)[op] = this.#op(op);
    }
  }

  async close(): Promise<void> {}

  // ---- test helpers (no faults, no steps) ----

  /** Every stored item by key (`META`, `DAY#…`, `PART#…`, `LEASE`, `ACTIVE`…), as parsed JSON plus `version`. */
  dump(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const item of this.#items.all()) {
      out[item.pk] = { ...(JSON.parse(item.data) as object), version: item.version };
    }
    return out;
  }

  /** The lease as stored, if any. */
  peekLease(): Lease | undefined {
    const item = this.#items.peek(LEASE_PK);
    return item === undefined ? undefined : decodeItem(item, leaseSchema, this.#items.where);
  }

  /** Writes raw `data` under `pk` (e.g. a malformed item), bypassing versions and faults. */
  setRaw(pk: string, data: unknown, version = 1): void {
    this.#items.setRaw(pk, JSON.stringify(data), version);
  }

  /** Loses the whole state (the state-loss case); the lease goes too. */
  wipe(): void {
    this.#items.clear();
  }

  // ---- internals ----

  #op(op: Op): StateStore[Op] {
    const call = (...args: unknown[]): Promise<unknown> => {
      const tries = replayable(this.#items);
      return this.faults.run(this.name, op, args, () => {
        const store = stateConcerns(tries()) as unknown as Record<Op, (...a: unknown[]) => Promise<unknown>>;
        return store[op](...args);
      });
    };
    return call as StateStore[Op];
  }
}

import type { Day } from '../../../lib/clock/day.ts';
import { ArchiverError } from '../../../lib/errors/archiverError.ts';
import { activeStateSchema } from '../../../lib/state/stateSchemas.ts';
import type {
  ActiveState,
  ArchiveMeta,
  DayState,
  Lease,
  PartitionManifest,
  StateStore,
} from '../../../lib/state/stateStore.ts';
import { decodeItem, versionedConcerns } from '../../../lib/state/versionedConcerns.ts';
import { FaultPlan } from './faultPlan.ts';
import { MemoryVersionedItems } from './memoryVersionedItems.ts';

/** The datasets a partition manifest can belong to (shared contract; absent = history). */
export type PartitionDataset = 'history' | 'active';

interface StoredLease {
  owner: string;
  fence: number;
  expiresAt: number;
}

export interface MemoryStateStoreOptions {
  /** Fault plan shared with other fakes (default: none). */
  faults?: FaultPlan;
  /** Label of this fake in the plan (default `state`). */
  name?: string;
}

/**
 * In-memory {@link StateStore} with the same semantics as `createDynamoStateStore`: manifests, day state
 * and META are the shared concerns (`versionedConcerns`) on the in-memory versioned-item primitive, as the
 * adapter's are on DynamoDB's; a lease whose fence grows on every acquisition and is only expired on
 * release; items stored as JSON and validated when read.
 * Every call goes through a {@link FaultPlan}, so tests can lose responses, fail calls or crash.
 */
export class MemoryStateStore implements StateStore {
  /** Replace to change the faults of later calls (e.g. a fresh plan for the next "process"). */
  faults: FaultPlan;
  readonly name: string;
  readonly #items = new MemoryVersionedItems();
  readonly #concerns = versionedConcerns(this.#items);
  #lease: StoredLease | undefined;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.faults = options.faults ?? FaultPlan.none();
    this.name = options.name ?? 'state';
  }

  // ---- StateStore ----

  acquireLease(
    owner: string,
    now: Date,
    ttlMs: number,
    breakIf?: (holder: Lease) => boolean | Promise<boolean>,
  ): Promise<Lease | undefined> {
    // Like the adapter: read, then a write conditioned on the fence read. A replayed call (an SDK retry
    // after a lost response) re-sends the same conditional write, so it reuses the first read.
    let read: { held: StoredLease | undefined } | undefined;
    return this.#run('acquireLease', [owner, now, ttlMs], async () => {
      const t = now.getTime();
      read ??= { held: this.#lease === undefined ? undefined : { ...this.#lease } };
      const { held } = read;
      const broken = held !== undefined && (await breakIf?.({ ...held })) === true;
      if (held !== undefined && held.owner !== owner && held.expiresAt >= t && !broken) return undefined;
      const current = this.#lease;
      const conditionHolds =
        held === undefined
          ? current === undefined
          : current !== undefined &&
            current.fence === held.fence &&
            (broken || current.expiresAt < t || current.owner === owner);
      if (!conditionHolds) {
        // Like the adapter: a refused write is settled by re-reading (our earlier try may have applied).
        const now = this.#lease;
        const fence = (held?.fence ?? 0) + 1;
        return now !== undefined && now.owner === owner && now.fence === fence && now.expiresAt === t + ttlMs
          ? { owner, fence, expiresAt: t + ttlMs }
          : undefined;
      }
      const lease: Lease = { owner, fence: (held?.fence ?? 0) + 1, expiresAt: t + ttlMs };
      this.#lease = { ...lease };
      return lease;
    });
  }

  renewLease(lease: Lease, now: Date, ttlMs: number): Promise<Lease> {
    return this.#run('renewLease', [lease, now, ttlMs], async () => {
      const held = this.#lease;
      if (held === undefined || held.owner !== lease.owner || held.fence !== lease.fence) {
        throw new ArchiverError(
          'LEASE_HELD',
          `lease ${lease.fence} of '${lease.owner}' was lost to another run`,
          {
            details: { owner: lease.owner, fence: lease.fence },
          },
        );
      }
      const renewed: Lease = { ...lease, expiresAt: now.getTime() + ttlMs };
      held.expiresAt = renewed.expiresAt;
      return renewed;
    });
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.#run('releaseLease', [lease], async () => {
      const held = this.#lease;
      // Expire rather than delete: the fence must keep growing across holders.
      if (held !== undefined && held.owner === lease.owner && held.fence === lease.fence) held.expiresAt = 0;
    });
  }

  getMeta(): Promise<ArchiveMeta | undefined> {
    return this.#run('getMeta', [], () => this.#concerns.getMeta());
  }

  putMeta(meta: ArchiveMeta): Promise<ArchiveMeta> {
    return this.#run('putMeta', [meta], () => this.#concerns.putMeta(meta));
  }

  getActiveState(): Promise<ActiveState | undefined> {
    return this.#run('getActiveState', [], async () => {
      const item = await this.#items.get('ACTIVE');
      return item === undefined ? undefined : decodeItem(item, activeStateSchema, this.#items.where);
    });
  }

  putActiveState(state: ActiveState): Promise<ActiveState> {
    return this.#run('putActiveState', [state], async () => {
      const { version, ...data } = state;
      await this.#items.put('ACTIVE', version, JSON.stringify(data));
      return { ...state, version: version + 1 };
    });
  }

  getDay(day: Day): Promise<DayState | undefined> {
    return this.#run('getDay', [day], () => this.#concerns.getDay(day));
  }

  listDays(): Promise<DayState[]> {
    return this.#run('listDays', [], () => this.#concerns.listDays());
  }

  putDay(state: DayState): Promise<DayState> {
    return this.#run('putDay', [state], () => this.#concerns.putDay(state));
  }

  getPartition(dt: Day, dataset?: PartitionDataset): Promise<PartitionManifest | undefined> {
    return this.#run('getPartition', [dt, dataset], () => this.#concerns.getPartition(dt, dataset));
  }

  /** Every partition of every dataset, like the adapter's scan of `PART#` (history first, then by day). */
  listPartitions(): Promise<PartitionManifest[]> {
    return this.#run('listPartitions', [], () => this.#concerns.listPartitions());
  }

  putPartition(manifest: PartitionManifest): Promise<PartitionManifest> {
    return this.#run('putPartition', [manifest], () => this.#concerns.putPartition(manifest));
  }

  async close(): Promise<void> {}

  // ---- test helpers (no faults, no steps) ----

  /** Every stored item by key (`META`, `DAY#…`, `PART#…`), as parsed JSON plus `version`. */
  dump(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const item of this.#items.all()) {
      out[item.pk] = { ...(JSON.parse(item.data) as object), version: item.version };
    }
    return out;
  }

  /** The lease as stored, if any. */
  peekLease(): Lease | undefined {
    return this.#lease === undefined ? undefined : { ...this.#lease };
  }

  /** Writes raw `data` under `pk` (e.g. a malformed item), bypassing versions and faults. */
  setRaw(pk: string, data: unknown, version = 1): void {
    this.#items.setRaw(pk, JSON.stringify(data), version);
  }

  /** Loses the whole state (issue 8's state-loss case); the lease goes too. */
  wipe(): void {
    this.#items.clear();
    this.#lease = undefined;
  }

  // ---- internals ----

  #run<T>(op: string, args: readonly unknown[], apply: () => Promise<T>): Promise<T> {
    return this.faults.run(this.name, op, args, apply);
  }
}

import type { z } from 'zod';
import type { Day } from '../../../lib/clock/day.ts';
import { ArchiverError } from '../../../lib/errors/archiverError.ts';
import {
  activeStateSchema,
  archiveMetaSchema,
  dayStateSchema,
  partitionManifestSchema,
} from '../../../lib/state/stateSchemas.ts';
import type {
  ActiveState,
  ArchiveMeta,
  DayState,
  Lease,
  PartitionManifest,
  StateStore,
} from '../../../lib/state/stateStore.ts';
import { FaultPlan } from './faultPlan.ts';

/** The datasets a partition manifest can belong to (shared contract; absent = history). */
export type PartitionDataset = 'history' | 'active';

type WithDataset = PartitionManifest & { dataset?: PartitionDataset };

interface StoredItem {
  version: number;
  /** JSON of the entity without `version`, as DynamoDB's `data` attribute holds it. */
  data: string;
}

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

const partitionKey = (dt: Day, dataset: PartitionDataset | undefined): string =>
  dataset === undefined || dataset === 'history' ? `PART#${dt}` : `PART#${dataset}#${dt}`;

/**
 * In-memory {@link StateStore} with the same semantics as `createDynamoStateStore`: versioned
 * conditional puts (`CONFLICT` with `details: { pk, expectedVersion }`), a lease whose fence grows on
 * every acquisition and is only expired on release, items stored as JSON and validated when read.
 * Every call goes through a {@link FaultPlan}, so tests can lose responses, fail calls or crash.
 */
export class MemoryStateStore implements StateStore {
  /** Replace to change the faults of later calls (e.g. a fresh plan for the next "process"). */
  faults: FaultPlan;
  readonly name: string;
  readonly #items = new Map<string, StoredItem>();
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
    return this.#run('getMeta', [], async () => this.#get('META', archiveMetaSchema));
  }

  putMeta(meta: ArchiveMeta): Promise<ArchiveMeta> {
    return this.#run('putMeta', [meta], async () => this.#put('META', meta));
  }

  getActiveState(): Promise<ActiveState | undefined> {
    return this.#run('getActiveState', [], async () => this.#get('ACTIVE', activeStateSchema));
  }

  putActiveState(state: ActiveState): Promise<ActiveState> {
    return this.#run('putActiveState', [state], async () => this.#put('ACTIVE', state));
  }

  getDay(day: Day): Promise<DayState | undefined> {
    return this.#run('getDay', [day], async () => this.#get(`DAY#${day}`, dayStateSchema));
  }

  listDays(): Promise<DayState[]> {
    return this.#run('listDays', [], async () =>
      this.#scan('DAY#', dayStateSchema).sort((a, b) => a.day.localeCompare(b.day)),
    );
  }

  putDay(state: DayState): Promise<DayState> {
    return this.#run('putDay', [state], async () => this.#put(`DAY#${state.day}`, state));
  }

  getPartition(dt: Day, dataset?: PartitionDataset): Promise<PartitionManifest | undefined> {
    return this.#run('getPartition', [dt, dataset], async () =>
      this.#get(partitionKey(dt, dataset), partitionManifestSchema),
    );
  }

  /** Manifests of one dataset (default `history`), ordered by `dt`. */
  /** Every partition of every dataset, like the adapter's scan of `PART#` (history first, then by day). */
  listPartitions(): Promise<PartitionManifest[]> {
    return this.#run('listPartitions', [], async () =>
      this.#scan('PART#', partitionManifestSchema).sort(
        (a, b) =>
          ((a as WithDataset).dataset ?? 'history').localeCompare((b as WithDataset).dataset ?? 'history') ||
          a.dt.localeCompare(b.dt),
      ),
    );
  }

  putPartition(manifest: PartitionManifest): Promise<PartitionManifest> {
    return this.#run('putPartition', [manifest], async () =>
      this.#put(partitionKey(manifest.dt, (manifest as WithDataset).dataset), manifest),
    );
  }

  async close(): Promise<void> {}

  // ---- test helpers (no faults, no steps) ----

  /** Every stored item by key (`META`, `DAY#…`, `PART#…`), as parsed JSON plus `version`. */
  dump(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [pk, item] of [...this.#items].sort(([a], [b]) => a.localeCompare(b))) {
      out[pk] = { ...(JSON.parse(item.data) as object), version: item.version };
    }
    return out;
  }

  /** The lease as stored, if any. */
  peekLease(): Lease | undefined {
    return this.#lease === undefined ? undefined : { ...this.#lease };
  }

  /** Writes raw `data` under `pk` (e.g. a malformed item), bypassing versions and faults. */
  setRaw(pk: string, data: unknown, version = 1): void {
    this.#items.set(pk, { version, data: JSON.stringify(data) });
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

  #decode<T>(pk: string, item: StoredItem, schema: z.ZodType<T>): T {
    let data: unknown;
    try {
      data = JSON.parse(item.data);
    } catch (cause) {
      throw new ArchiverError('INTERNAL', `state item '${pk}' holds invalid JSON`, { cause });
    }
    const parsed = schema.safeParse({ ...(data as object), version: item.version });
    if (!parsed.success) {
      throw new ArchiverError('INTERNAL', `state item '${pk}' is malformed`, { cause: parsed.error });
    }
    return parsed.data;
  }

  #get<T>(pk: string, schema: z.ZodType<T>): T | undefined {
    const item = this.#items.get(pk);
    return item === undefined ? undefined : this.#decode(pk, item, schema);
  }

  #scan<T>(prefix: string, schema: z.ZodType<T>): T[] {
    const out: T[] = [];
    for (const [pk, item] of this.#items) if (pk.startsWith(prefix)) out.push(this.#decode(pk, item, schema));
    return out;
  }

  /** Stores `entity` as `version + 1` if the stored version is still `entity.version` (0 = absent). */
  #put<T extends { version: number }>(pk: string, entity: T): T {
    const { version, ...data } = entity;
    const stored = this.#items.get(pk);
    const ok = version === 0 ? stored === undefined : stored?.version === version;
    if (!ok) {
      throw new ArchiverError('CONFLICT', `state item '${pk}' changed since version ${version} was read`, {
        details: { pk, expectedVersion: version },
      });
    }
    this.#items.set(pk, { version: version + 1, data: JSON.stringify(data) });
    return { ...entity, version: version + 1 };
  }
}

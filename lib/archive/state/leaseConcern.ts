import { ArchiverError } from '../../foundation/index.ts';
import { type Lease, leaseSchema } from './lease.ts';
import type { LeaseStore } from './statePorts.ts';
import { decodeItem } from './versionedConcerns.ts';
import type { VersionedItems } from './versionedItems.ts';

/** The lease's item: `data` `{owner, fence, expiresAt}` (older releases: those as plain attributes). */
export const LEASE_PK = 'LEASE';

/** Tries of a rewrite of our own lease (renew, release) that keeps meeting other writes of it. */
const MAX_REWRITES = 10;

const sameHolder = (a: Lease | undefined, b: Lease): boolean => a?.owner === b.owner && a.fence === b.fence;

/**
 * The single-writer lease, written once on the versioned-item primitive: one item whose every write is
 * conditioned on the version read. Its fence grows by one on every acquisition and never resets (release
 * expires the lease rather than deleting it), so of two racing acquirers only one wins, and a write whose
 * answer was lost (the SDK's retry then fails its condition) is settled by re-reading: ours exactly when
 * it carries our owner and fence.
 */
export function leaseConcern(items: VersionedItems): LeaseStore {
  const read = async (): Promise<{ version: number; lease: Lease } | undefined> => {
    const item = await items.get(LEASE_PK);
    return item === undefined
      ? undefined
      : { version: item.version, lease: decodeItem(item, leaseSchema, items.where) };
  };
  const write = (version: number, { owner, fence, expiresAt }: Lease): Promise<void> =>
    items.put(LEASE_PK, version, JSON.stringify({ owner, fence, expiresAt }));

  /**
   * Moves our lease's `expiresAt` to `expiresAt` while it is still ours (owner and fence), unless `done`
   * says the stored lease already is where it should be; false once the lease is not ours. A write that
   * meets another write of it (a fan-out sibling renewing the same lease at once, our own retried lost
   * answer) reads again: the sibling's renewal usually settles ours.
   */
  const rewriteOwn = async (lease: Lease, expiresAt: number, done: (stored: Lease) => boolean) => {
    for (let attempt = 1; ; attempt++) {
      const stored = await read();
      if (stored === undefined || !sameHolder(stored.lease, lease)) return false;
      if (done(stored.lease)) return true;
      try {
        await write(stored.version, { ...lease, expiresAt });
        return true;
      } catch (error) {
        if (!ArchiverError.is(error, 'CONFLICT') || attempt >= MAX_REWRITES) throw error;
      }
    }
  };

  return {
    async acquireLease(owner, now, ttlMs, breakIf) {
      const t = now.getTime();
      const stored = await read();
      const held = stored?.lease;
      // A lease whose holder is certainly dead is taken at once: the version still lets only one taker win.
      const broken = held !== undefined && (await breakIf?.({ ...held })) === true;
      if (held !== undefined && held.owner !== owner && held.expiresAt >= t && !broken) return undefined;
      const lease: Lease = { owner, fence: (held?.fence ?? 0) + 1, expiresAt: t + ttlMs };
      try {
        await write(stored?.version ?? 0, lease);
        return lease;
      } catch (error) {
        if (!ArchiverError.is(error, 'CONFLICT')) throw error;
        // Refused, or our own write applied and its answer was lost: ours exactly when it names us.
        return sameHolder((await read())?.lease, lease) ? lease : undefined;
      }
    },

    async renewLease(lease, now, ttlMs) {
      const renewed: Lease = { ...lease, expiresAt: now.getTime() + ttlMs };
      // A renewal never shortens the lease: one stored as long or longer (a sibling's) is this one's too.
      if (await rewriteOwn(lease, renewed.expiresAt, (s) => s.expiresAt >= renewed.expiresAt)) return renewed;
      throw new ArchiverError(
        'LEASE_HELD',
        `lease ${lease.fence} of '${lease.owner}' was lost to another run`,
        {
          details: { owner: lease.owner, fence: lease.fence },
        },
      );
    },

    async releaseLease(lease) {
      // Expire rather than delete: the fence must keep growing across holders. Not ours: nothing to give up.
      await rewriteOwn(lease, 0, (s) => s.expiresAt === 0);
    },
  };
}

import { ArchiverError } from '../errors/archiverError.ts';
import type { VersionedItems } from '../state/versionedItems.ts';
import { FINDING_PK_PREFIX } from './dynamoFindingLedger.ts';
import type { FindingLedger } from './findingLedger.ts';

/**
 * The ledger on the versioned-item primitive (local mode's state folder): one item per finding id,
 * created at version 0, so of two evaluations exactly one creates it; a claim that meets the item reads
 * it back and is ours only when it names this `owner`, as on DynamoDB (`dynamoFindingLedger`).
 */
export function versionedFindingLedger(items: VersionedItems, owner: string): FindingLedger {
  return {
    async claim(findingId, dedupeKey, expiresAt) {
      const pk = `${FINDING_PK_PREFIX}${findingId}`;
      const data = JSON.stringify({ dedupeKey, owner, expiresAt: Math.ceil(expiresAt.getTime() / 1000) });
      try {
        await items.put(pk, 0, data);
        return true;
      } catch (error) {
        if (!ArchiverError.is(error, 'CONFLICT')) throw error;
        const held = await items.get(pk);
        return held !== undefined && (JSON.parse(held.data) as { owner?: unknown }).owner === owner;
      }
    },
  };
}

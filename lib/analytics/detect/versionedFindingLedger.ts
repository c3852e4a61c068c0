import { sha256Hex, type VersionedItems } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import type { FindingLedger, LedgerEntry } from './findingLedger.ts';

/** Key prefix of the ledger's items in the state table (beside `DAY#`, `PART#`, ...). */
export const FINDING_PK_PREFIX = 'FINDING#';
/** The outbox: the dedupe keys whose delivery an evaluation began and may not have finished. */
export const FINDING_OUTBOX_PK = `${FINDING_PK_PREFIX}OUTBOX`;

async function conditional(put: () => Promise<void>): Promise<boolean> {
  try {
    await put();
    return true;
  } catch (error) {
    if (ArchiverError.is(error, 'CONFLICT')) return false;
    throw error;
  }
}

/**
 * The ledger on the versioned-item primitive: DynamoDB in AWS (`dynamoVersionedItems` on the state
 * table), the state folder locally. One item per dedupe key (`FINDING#<sha256>`), one for the outbox.
 */
export function versionedFindingLedger(items: VersionedItems, owner: string): FindingLedger {
  const pk = (key: string) => `${FINDING_PK_PREFIX}${sha256Hex(key).slice(0, 40)}`;
  return {
    owner,
    async read(key) {
      const held = await items.get(pk(key));
      return held && { version: held.version, entry: JSON.parse(held.data) as LedgerEntry };
    },
    write: (key, version, entry) => conditional(() => items.put(pk(key), version, JSON.stringify(entry))),
    async readOutbox() {
      const held = await items.get(FINDING_OUTBOX_PK);
      return {
        version: held?.version ?? 0,
        keys: held ? ((JSON.parse(held.data) as { keys?: string[] }).keys ?? []) : [],
      };
    },
    writeOutbox: (version, keys) =>
      conditional(() => items.put(FINDING_OUTBOX_PK, version, JSON.stringify({ keys }))),
  };
}

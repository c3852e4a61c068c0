import type { ObjectStore } from '../store/objectStore.ts';
import { sha256OfBytes } from './describeDataFile.ts';
import { digestKeys } from './digestKeys.ts';
import type { ChainHead } from './digestState.ts';

/**
 * Whether the archive's chain ends where the state says it does: the head digest is there with the
 * recorded SHA-256, and nothing follows it. Two requests, whatever the chain's length. When it does not
 * match (a state restored from an older copy, a run that died between its digest and its state write, a
 * rewound chain), the run reconciles with the whole archive instead of trusting the state.
 */
export async function chainHeadMatches(objects: ObjectStore, head: ChainHead | undefined): Promise<boolean> {
  if (head === undefined || head.key !== digestKeys.digest(head.seq)) return false;
  const bytes = await objects.get(head.key);
  if (bytes === undefined || sha256OfBytes(bytes) !== head.sha256) return false;
  return (await objects.head(digestKeys.digest(head.seq + 1))) === undefined;
}

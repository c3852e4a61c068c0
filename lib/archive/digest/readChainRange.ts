import { mapLimit } from '../../foundation/index.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { digestKeys } from './digestKeys.ts';
import { type ChainEntry, parseChainEntry } from './readDigestChain.ts';

const BATCH = 16;

/**
 * Digests `from` to `to` by their keys (no listing), in order, stopping at the first one absent; without
 * `to`, up to the newest: the cost follows the digests asked for, not the chain's length.
 */
export async function readChainRange(objects: ObjectStore, from: number, to?: number): Promise<ChainEntry[]> {
  const entries: ChainEntry[] = [];
  for (let at = from; to === undefined || at <= to; at += BATCH) {
    const seqs = Array.from(
      { length: to === undefined ? BATCH : Math.min(BATCH, to - at + 1) },
      (_, i) => at + i,
    );
    const read = await mapLimit(seqs, BATCH, async (seq) => {
      const key = digestKeys.digest(seq);
      const bytes = await objects.get(key);
      return bytes ? parseChainEntry(key, seq, bytes) : undefined;
    });
    for (const entry of read) {
      if (!entry) return entries;
      entries.push(entry);
    }
  }
  return entries;
}

import { createHash } from 'node:crypto';
import { ArchiverError } from '../../foundation/index.ts';
import type { ObjectStore } from './objectStore.ts';

const CHUNK = 8 * 1024 * 1024;

/**
 * Whether two objects hold the same bytes: sizes first, then SHA-256 over ranged reads (a chunk at a
 * time, so a large file is never held whole). Used only when a write-once publish finds its target
 * taken: a rare path, where telling "our own earlier copy" from "someone else's bytes" is worth a read.
 */
export async function sameObjectBytes(
  store: Pick<ObjectStore, 'head' | 'getRange'>,
  a: string,
  b: string,
): Promise<boolean> {
  const [ha, hb] = await Promise.all([store.head(a), store.head(b)]);
  if (ha === undefined || hb === undefined || ha.size !== hb.size) return false;
  const [da, db] = [createHash('sha256'), createHash('sha256')];
  for (let start = 0; start < ha.size; start += CHUNK) {
    const end = Math.min(ha.size, start + CHUNK);
    const [ca, cb] = await Promise.all([store.getRange(a, start, end), store.getRange(b, start, end)]);
    if (ca === undefined || cb === undefined) return false;
    da.update(ca);
    db.update(cb);
  }
  return da.digest('hex') === db.digest('hex');
}

/**
 * A publish whose target already holds other bytes: the loser of a write-once race with different
 * content. It fails loudly and keeps its staged copy (nothing is lost, nothing is overwritten).
 */
export function writeOnceConflict(fromKey: string, toKey: string): ArchiverError {
  return new ArchiverError(
    'STORE_FAILED',
    `write-once conflict: '${toKey}' already holds other bytes than '${fromKey}'; nothing was overwritten, and the staged copy is kept`,
    { retryable: false, details: { fromKey, toKey, conflict: 'write-once' } },
  );
}

import type { Day } from '../clock/day.ts';
import { sha256Hex } from '../records/sha256Hex.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { activeKeys } from './activeKeys.ts';
import { activeParquetBytes, readActiveRowIds } from './activeParquet.ts';
import type { ActiveRow } from './activeRow.ts';

/**
 * A self-contained exactly-once `commitRows` for `active/`, until the engine's committer (manifest,
 * digests) takes the dataset over: it reads the `row_id`s of the partition's files, drops the rows
 * already held, and writes the rest as one file whose name is derived from its row ids, so a retried
 * or concurrent commit of the same rows writes the same key with the same bytes.
 */
export function objectStoreRowSink(objects: ObjectStore) {
  return async (dt: Day, rows: readonly ActiveRow[]): Promise<{ written: number; key?: string }> => {
    const held = new Set<string>();
    for await (const info of objects.list(activeKeys.partition(dt))) {
      if (!info.key.endsWith('.parquet')) continue;
      const bytes = await objects.get(info.key);
      if (bytes === undefined) continue;
      for (const id of await readActiveRowIds(bytes)) held.add(id);
    }
    const fresh = rows.filter((r) => !held.has(r.row_id));
    if (fresh.length === 0) return { written: 0 };
    const name = `part-${sha256Hex(
      fresh
        .map((r) => r.row_id)
        .sort()
        .join('\n'),
    ).slice(0, 32)}.parquet`;
    const key = activeKeys.data(dt, name);
    await objects.put(key, await activeParquetBytes(fresh));
    return { written: fresh.length, key };
  };
}

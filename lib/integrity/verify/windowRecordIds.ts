import { archiveKeys, type ObjectStore, objectSource, readStringColumn } from '../../archive/index.ts';
import { addDays, type Day } from '../../foundation/index.ts';

/** The `record_id`s of the `history/` partitions from `from` to `to`: what the API comparison needs. */
export async function windowRecordIds(
  objects: ObjectStore,
  window: { from: string; to: string } | undefined,
): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!window) return ids;
  for (let day = window.from as Day; day <= window.to; day = addDays(day, 1)) {
    for await (const o of objects.list(`${archiveKeys.historyPrefix}dt=${day}/`)) {
      try {
        for await (const id of readStringColumn(objectSource(objects, o.key, o.size), 'record_id'))
          ids.add(id);
      } catch {
        // Not readable Parquet: the hash and rows checks report the file itself.
      }
    }
  }
  return ids;
}

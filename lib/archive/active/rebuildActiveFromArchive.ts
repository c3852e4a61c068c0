import type { ObjectStore } from '../store/objectStore.ts';
import { activeKeys } from './activeKeys.ts';
import { readActiveRows } from './activeParquet.ts';
import type { ActiveObservations } from './activeState.ts';
import { rebuildActiveObservations } from './rebuildActiveObservations.ts';

/**
 * The observations `active/` implies, for a state store that lost (or never had) its `ACTIVE` item:
 * every file is read, since a session's last row can be as old as the session. `undefined` when the
 * dataset is empty. A recovery path, not a per-snapshot cost.
 */
export async function rebuildActiveFromArchive(
  objects: ObjectStore,
): Promise<ActiveObservations | undefined> {
  const rows = [];
  for await (const info of objects.list(activeKeys.prefix)) {
    if (!info.key.endsWith('.parquet')) continue;
    const bytes = await objects.get(info.key);
    if (bytes !== undefined) rows.push(...(await readActiveRows(bytes)));
  }
  return rows.length === 0 ? undefined : rebuildActiveObservations(rows);
}

import { existsSync } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import { lockDir } from './dirLock.ts';
import { fileVersionedItems, pendingWritesDir } from './fileVersionedItems.ts';
import { stateConcerns } from './stateConcerns.ts';
import type { StateStore } from './stateStore.ts';
import type { VersionedItems } from './versionedItems.ts';

/** The folder of item files inside a local state folder (`<dest>/.state/items`). */
export const LOCAL_ITEMS_DIR = 'items';
/** Where a migration writes before it is complete; renamed to {@link LOCAL_ITEMS_DIR} at its end. */
const MIGRATING_DIR = 'items.migrating';

export interface LocalState {
  /** The state folder's versioned items (the finding ledger is kept on them too). */
  items: VersionedItems;
  state: StateStore;
  /** Gives up the folder's lock. */
  close(): Promise<void>;
}

/**
 * Opens local mode's state in `dir` (`<dest>/.state`): the state folder's lock first (one process at a
 * time, released by the kernel when the process dies, `lockDir`), then the state concerns on item files
 * (`fileVersionedItems`): the same concerns as on DynamoDB, on a folder instead of a server. A folder
 * written by earlier versions (a LevelDB database of the embedded DynamoDB-compatible server) is
 * migrated once, item for item, before it is used: into a side folder renamed into place only when every
 * item is copied, so a migration cut short is simply done again by the next run. Its old files stay.
 */
export async function openLocalState(dir: string, logger: Logger): Promise<LocalState> {
  const unlock = await lockDir(dir);
  try {
    const itemsDir = path.join(dir, LOCAL_ITEMS_DIR);
    if (!existsSync(itemsDir) && existsSync(path.join(dir, 'CURRENT'))) {
      await migrateLegacyState(dir, itemsDir, logger);
    }
    // Writes a killed process never renamed into place: never read, removed whole (no listing of the items).
    await rm(pendingWritesDir(itemsDir), { recursive: true, force: true });
    const items = fileVersionedItems(itemsDir);
    const close = async (): Promise<void> => {
      // Empty once every write was renamed into place: not left behind (an empty folder says nothing).
      await rmdir(pendingWritesDir(itemsDir)).catch(() => undefined);
      await unlock();
    };
    return { items, state: stateConcerns(items), close };
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function migrateLegacyState(dir: string, itemsDir: string, logger: Logger): Promise<void> {
  const migrating = path.join(dir, MIGRATING_DIR);
  await rm(migrating, { recursive: true, force: true });
  await mkdir(migrating, { mode: 0o700 });
  const { readLegacyLocalItems } = await import('./legacyLocalItems.ts');
  try {
    const stored = await readLegacyLocalItems(dir);
    const target = fileVersionedItems(migrating);
    // Each item at version 1 (the concerns compare versions only with what they read): an old item
    // stored without a version is then a stored item like any other, never taken for an absent one.
    for (const item of stored) await target.put(item.pk, 0, item.data, item.bytes);
    await rename(migrating, itemsDir);
    await rm(pendingWritesDir(migrating), { recursive: true, force: true });
    logger.info('local state moved from the embedded DynamoDB-compatible server to item files', {
      dir,
      items: stored.length,
    });
  } catch (cause) {
    throw new ArchiverError(
      'STORE_FAILED',
      `cannot migrate the local state in ${dir}: ${(cause as Error).message}`,
      { cause, retryable: false },
    );
  }
}

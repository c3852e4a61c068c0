import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { lockDir } from './dirLock.ts';
import { fileVersionedItems, pendingWritesDir } from './fileVersionedItems.ts';
import { stateConcerns } from './stateConcerns.ts';
import type { StateStore } from './statePorts.ts';
import type { VersionedItems } from './versionedItems.ts';

/** The folder of item files inside a local state folder (`<dest>/.state/items`). */
export const LOCAL_ITEMS_DIR = 'items';

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
 * (`fileVersionedItems`): the same concerns as on DynamoDB, on a folder instead of a server.
 */
export async function openLocalState(dir: string): Promise<LocalState> {
  const unlock = await lockDir(dir);
  try {
    const itemsDir = path.join(dir, LOCAL_ITEMS_DIR);
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

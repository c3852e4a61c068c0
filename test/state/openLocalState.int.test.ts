import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { pendingWritesDir } from '../../lib/archive/state/fileVersionedItems.ts';
import { LOCAL_ITEMS_DIR, openLocalState } from '../../lib/archive/state/openLocalState.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const day: DayState = {
  day: '2026-05-30',
  scannedAges: [1, 2],
  sealed: false,
  totalElements: 12,
  version: 0,
};

describe('openLocalState', () => {
  const tmp = tempDirPer('ta-local-state-', 'test');

  it('opens a new folder on item files, and keeps what it stores across opens', async () => {
    const first = await openLocalState(tmp.dir);
    await first.state.putDay(day);
    await first.close();
    const again = await openLocalState(tmp.dir);
    try {
      expect(await again.state.getDay(day.day)).toMatchObject({ ...day, version: 1 });
      expect(await readdir(path.join(tmp.dir, LOCAL_ITEMS_DIR))).toEqual(['DAY%232026-05-30.json']);
    } finally {
      await again.close();
    }
  });

  it('reads an item as it was when its writer died before the rename, and clears the unrenamed write', async () => {
    const first = await openLocalState(tmp.dir);
    await first.state.putDay(day);
    await first.close();
    // A process killed between writing its temporary file and renaming it over the item.
    const items = path.join(tmp.dir, LOCAL_ITEMS_DIR);
    const unrenamed = path.join(pendingWritesDir(items), 'DAY%232026-05-30.json.4242-7.tmp');
    await mkdir(pendingWritesDir(items), { recursive: true });
    await writeFile(unrenamed, '{"pk":"DAY#2026-05-30","ver');
    const again = await openLocalState(tmp.dir);
    try {
      expect(await again.state.getDay(day.day)).toMatchObject({ ...day, version: 1 });
      expect(await readdir(items)).toEqual(['DAY%232026-05-30.json']);
      expect(existsSync(unrenamed)).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('is one process’s at a time: a second open of the folder is refused while the first holds it', async () => {
    const first = await openLocalState(tmp.dir);
    try {
      await expect(openLocalState(tmp.dir)).rejects.toMatchObject({ code: 'LEASE_HELD' });
    } finally {
      await first.close();
    }
  });
});

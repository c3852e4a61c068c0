import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/log/logger.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/state/dynamoStateStore.ts';
import { pendingWritesDir } from '../../lib/state/fileVersionedItems.ts';
import { LEGACY_LOCAL_TABLE } from '../../lib/state/legacyLocalItems.ts';
import { startLocalDynamo } from '../../lib/state/localDynamo.ts';
import { LOCAL_ITEMS_DIR, openLocalState } from '../../lib/state/openLocalState.ts';
import type { ActiveState, DayState } from '../../lib/state/stateStore.ts';
import { localDynamoClient } from '../support/startDynalite.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const T0 = new Date('2026-06-01T00:00:00Z');
const day: DayState = {
  day: '2026-05-30',
  scannedAges: [1, 2],
  sealed: false,
  totalElements: 12,
  version: 0,
};
/** Live state with `gaps` gaps of random hex: about 600 KB of gzip at 6000, more than one item holds. */
const live = (gaps: number): Omit<ActiveState, 'version'> => ({
  sessions: {},
  gaps: Array.from({ length: gaps }, () => ({ from: randomBytes(100).toString('hex'), to: 'x', ms: 1 })),
  lastSnapshotAt: T0.toISOString(),
});

/** A state folder as earlier versions left it: the embedded server's LevelDB database and its table. */
async function legacyFolder(
  dir: string,
  plant: (client: ReturnType<typeof localDynamoClient>) => Promise<void>,
) {
  const server = await startLocalDynamo({ dir });
  const client = localDynamoClient(server.endpoint);
  try {
    await ensureStateTable(client, LEGACY_LOCAL_TABLE);
    await plant(client);
  } finally {
    client.destroy();
    await server.close();
  }
}

describe('openLocalState', () => {
  const tmp = tempDirPer('ta-local-state-', 'test');

  it('opens a new folder on item files, and keeps what it stores across opens', async () => {
    const first = await openLocalState(tmp.dir, silentLogger);
    await first.state.putDay(day);
    await first.close();
    const again = await openLocalState(tmp.dir, silentLogger);
    try {
      expect(await again.state.getDay(day.day)).toMatchObject({ ...day, version: 1 });
      expect(await readdir(path.join(tmp.dir, LOCAL_ITEMS_DIR))).toEqual(['DAY%232026-05-30.json']);
    } finally {
      await again.close();
    }
  });

  it('reads an item as it was when its writer died before the rename, and clears the unrenamed write', async () => {
    const first = await openLocalState(tmp.dir, silentLogger);
    await first.state.putDay(day);
    await first.close();
    // A process killed between writing its temporary file and renaming it over the item.
    const items = path.join(tmp.dir, LOCAL_ITEMS_DIR);
    const unrenamed = path.join(pendingWritesDir(items), 'DAY%232026-05-30.json.4242-7.tmp');
    await mkdir(pendingWritesDir(items), { recursive: true });
    await writeFile(unrenamed, '{"pk":"DAY#2026-05-30","ver');
    const again = await openLocalState(tmp.dir, silentLogger);
    try {
      expect(await again.state.getDay(day.day)).toMatchObject({ ...day, version: 1 });
      expect(await readdir(items)).toEqual(['DAY%232026-05-30.json']);
      expect(existsSync(unrenamed)).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('is one process’s at a time: a second open of the folder is refused while the first holds it', async () => {
    const first = await openLocalState(tmp.dir, silentLogger);
    try {
      await expect(openLocalState(tmp.dir, silentLogger)).rejects.toMatchObject({ code: 'LEASE_HELD' });
    } finally {
      await first.close();
    }
  });

  it('moves a folder an earlier version kept in the embedded server, item for item, once', async () => {
    // Every kind of item such a folder holds, the lease and the live state in their oldest layouts.
    const bigLive = live(6000);
    await legacyFolder(tmp.dir, async (client) => {
      const store = createDynamoStateStore({ client, table: LEGACY_LOCAL_TABLE });
      await store.putDay(day);
      await store.putMeta({
        firstWindowStart: '2026-04-02',
        firstRunAt: T0.toISOString(),
        version: 0,
      } as never);
      await store.putActiveState({ ...bigLive, version: 0 });
      // A finding claim as earlier versions wrote it (plain attributes, no version).
      await client.send(
        new PutItemCommand({
          TableName: LEGACY_LOCAL_TABLE,
          Item: {
            pk: { S: 'FINDING#f1' },
            dedupeKey: { S: 'k' },
            owner: { S: 'eval-1' },
            expiresAt: { N: '0' },
          },
        }),
      );
      await client.send(
        new PutItemCommand({
          TableName: LEGACY_LOCAL_TABLE,
          Item: { pk: { S: 'LEASE' }, owner: { S: 'old-run' }, fence: { N: '41' }, expiresAt: { N: '0' } },
        }),
      );
    });
    const infos: unknown[] = [];
    const logger = {
      ...silentLogger,
      info: (message: string, fields?: unknown) => infos.push({ message, fields }),
    };
    const local = await openLocalState(tmp.dir, logger);
    try {
      expect(infos).toHaveLength(1);
      expect(await local.state.getDay(day.day)).toMatchObject({ ...day, version: 1 });
      expect(await local.state.getMeta()).toMatchObject({ firstWindowStart: '2026-04-02' });
      const active = await local.state.getActiveState();
      expect(active?.gaps).toEqual(bigLive.gaps);
      // The old lease's fence goes on growing; an expired lease is taken.
      expect(await local.state.acquireLease('new-run', T0, 60_000)).toMatchObject({
        owner: 'new-run',
        fence: 42,
      });
      // The claim moves as it was: the first evaluation's.
      expect(JSON.parse((await local.items.get('FINDING#f1'))?.data ?? '{}')).toMatchObject({
        owner: 'eval-1',
      });
      // The live state is written on, and replaced, as any other.
      await local.state.putActiveState({ ...live(3), version: active?.version ?? 0 });
      expect((await local.state.getActiveState())?.gaps).toHaveLength(3);
    } finally {
      await local.close();
    }
    // Nothing of the move is left beside the items; opened again: already moved, nothing moved twice.
    expect((await readdir(tmp.dir)).filter((n) => n.startsWith('items'))).toEqual(['items']);
    const again = await openLocalState(tmp.dir, logger);
    await again.close();
    expect(infos).toHaveLength(1);
  });

  it('does a migration cut short again from the start, and moves a folder that never got its table', async () => {
    await legacyFolder(tmp.dir, async (client) => {
      await createDynamoStateStore({ client, table: LEGACY_LOCAL_TABLE }).putDay(day);
    });
    // A migration killed half-way: its side folder holds part of the items (and a stale one).
    await mkdir(path.join(tmp.dir, 'items.migrating'));
    await writeFile(
      path.join(tmp.dir, 'items.migrating', 'DAY%232026-01-01.json'),
      '{"pk":"DAY#2026-01-01"}',
    );
    const local = await openLocalState(tmp.dir, silentLogger);
    try {
      expect((await local.state.listDays()).map((d) => d.day)).toEqual([day.day]);
    } finally {
      await local.close();
    }
    const empty = await mkdtemp(path.join(tmpdir(), 'ta-local-state-empty-'));
    try {
      const server = await startLocalDynamo({ dir: empty });
      await server.close();
      const opened = await openLocalState(empty, silentLogger);
      expect(await opened.state.listDays()).toEqual([]);
      await opened.close();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

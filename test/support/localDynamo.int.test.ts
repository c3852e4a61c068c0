import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalDynamo, startLocalDynamo } from '../../devkit/localDynamo.ts';
import { localDynamoClient } from '../../devkit/startDynalite.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';

describe('startLocalDynamo', () => {
  let dir: string;
  const running: LocalDynamo[] = [];

  const start = async (opts: Parameters<typeof startLocalDynamo>[0]) => {
    const dynamo = await startLocalDynamo(opts);
    running.push(dynamo);
    return dynamo;
  };

  const withStore = async <T>(
    dynamo: LocalDynamo,
    fn: (store: ReturnType<typeof createDynamoStateStore>) => Promise<T>,
  ) => {
    const client = localDynamoClient(dynamo.endpoint);
    try {
      await ensureStateTable(client, 'archive-state');
      return await fn(createDynamoStateStore({ client, table: 'archive-state' }));
    } finally {
      client.destroy();
    }
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'local-dynamo-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((d) => d.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('serves on 127.0.0.1 with a random port', async () => {
    const dynamo = await start({});
    expect(dynamo.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps state in its folder across a restart', async () => {
    const stateDir = path.join(dir, 'archive', '.state');
    const first = await start({ dir: stateDir });
    const written = await withStore(first, (store) =>
      store.putMeta({ firstRunAt: '2024-06-01T00:00:00Z', firstWindowStart: '2024-04-02', version: 0 }),
    );
    await first.close();

    const second = await start({ dir: stateDir });
    expect(second.endpoint).not.toBe('');
    expect(await withStore(second, (store) => store.getMeta())).toEqual(written);
  });

  it('forgets everything when run in memory', async () => {
    const first = await start({});
    await withStore(first, (store) =>
      store.putMeta({ firstRunAt: 'x', firstWindowStart: '2024-04-02', version: 0 }),
    );
    await first.close();
    const second = await start({});
    expect(await withStore(second, (store) => store.getMeta())).toBeUndefined();
  });

  it('refuses a second server on a folder in use with LEASE_HELD, and frees it on close', async () => {
    const first = await start({ dir });
    await expect(startLocalDynamo({ dir })).rejects.toMatchObject({ code: 'LEASE_HELD' });
    await first.close();
    await start({ dir });
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'tunnel-archiver.lock'), '2147483646');
    const dynamo = await start({ dir });
    expect(await withStore(dynamo, (store) => store.getMeta())).toBeUndefined();
    expect((await readdir(dir)).filter((f) => f.startsWith('tunnel-archiver.lock'))).toEqual([
      'tunnel-archiver.lock',
    ]);
  });
});

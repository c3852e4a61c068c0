import { randomBytes } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSnapshot } from '../../lib/active/diffSnapshot.ts';
import { toPendingRow } from '../../lib/active/storedFields.ts';
import { createDynamoStateStore } from '../../lib/state/dynamoStateStore.ts';
import type { ActiveState } from '../../lib/state/stateStore.ts';
import { type DynaliteHandle, startDynalite } from '../support/startDynalite.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');

describe('createDynamoStateStore: active state', () => {
  let dynamo: DynaliteHandle;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  it('stores 2000 open sessions plus their pending rows in one compressed item, versioned', async () => {
    const store = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    expect(await store.getActiveState()).toBeUndefined();
    const sessions = Array.from({ length: 2000 }, (_, i) => session(`id-${i}`, { port: 10_000 + i }));
    const diff = diffSnapshot({ sessions: {} }, sessions, T0, {
      tokenPolicy: 'hash',
      tokenKey: TOKEN_KEY,
      scheduleMs: 300_000,
    });
    const state: ActiveState = {
      ...diff.next,
      gaps: [{ from: 'a', to: 'b', ms: 1 }],
      pending: { dt: '2025-03-01', rows: diff.rows.map(toPendingRow) },
      version: 0,
    };
    const v1 = await store.putActiveState(state);
    expect(v1.version).toBe(1);
    expect(await store.getActiveState()).toEqual(v1);

    const raw = await dynamo.client.send(
      new GetItemCommand({ TableName: dynamo.table, Key: { pk: { S: 'ACTIVE' } } }),
    );
    const size = raw.Item?.dataGz?.B?.byteLength ?? 0;
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThan(400_000);

    await expect(store.putActiveState(state)).rejects.toMatchObject({ code: 'CONFLICT' });
    const { pending: _p, ...cleared } = v1;
    expect((await store.putActiveState(cleared)).version).toBe(2);
    expect((await store.getActiveState())?.pending).toBeUndefined();
  });

  it('refuses, with a reason, a state too large for one item', async () => {
    const store = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    const noise = randomBytes(450_000).toString('base64'); // does not compress below 400 KB
    const diff = diffSnapshot({ sessions: {} }, [session('big', { noise })], T0, {
      tokenPolicy: 'hash',
      tokenKey: TOKEN_KEY,
      scheduleMs: 300_000,
    });
    await expect(store.putActiveState({ ...diff.next, gaps: [], version: 0 })).rejects.toMatchObject({
      code: 'STORE_FAILED',
      retryable: false,
      message: expect.stringMatching(/400 KB item limit/),
    });
  });
});

import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoStateStore } from '../../lib/state/dynamoStateStore.ts';
import { type DynaliteHandle, startDynalite } from '../support/startDynalite.ts';

/**
 * The store marshals with @aws-sdk/util-dynamodb; the item layout on disk must stay what it was, so a
 * state written before (local `.state` folders, the AWS table) is read as before.
 */
describe('createDynamoStateStore item layout', () => {
  let dynamo: DynaliteHandle;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo.close();
  });

  it('reads an item written in the original hand-marshalled layout', async () => {
    await dynamo.client.send(
      new PutItemCommand({
        TableName: dynamo.table,
        Item: {
          pk: { S: 'DAY#2024-06-01' },
          version: { N: '3' },
          data: { S: JSON.stringify({ day: '2024-06-01', scannedAges: [0, 1], sealed: false }) },
        },
      }),
    );
    const store = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    expect(await store.getDay('2024-06-01')).toEqual({
      day: '2024-06-01',
      scannedAges: [0, 1],
      sealed: false,
      version: 3,
    });
  });

  it('writes pk, a numeric version and a JSON data string; the lease as plain attributes', async () => {
    const store = createDynamoStateStore({ client: dynamo.client, table: dynamo.table });
    await store.putMeta({
      firstRunAt: '2024-06-01T00:00:00.000Z',
      firstWindowStart: '2024-04-03',
      version: 0,
    });
    const meta = await dynamo.client.send(
      new GetItemCommand({ TableName: dynamo.table, Key: { pk: { S: 'META' } } }),
    );
    expect(meta.Item).toEqual({
      pk: { S: 'META' },
      version: { N: '1' },
      data: { S: JSON.stringify({ firstRunAt: '2024-06-01T00:00:00.000Z', firstWindowStart: '2024-04-03' }) },
    });
    const lease = await store.acquireLease('run-1', new Date(1_000), 60_000);
    expect(lease).toEqual({ owner: 'run-1', fence: 1, expiresAt: 61_000 });
    const item = await dynamo.client.send(
      new GetItemCommand({ TableName: dynamo.table, Key: { pk: { S: 'LEASE' } } }),
    );
    expect(item.Item).toEqual({
      pk: { S: 'LEASE' },
      owner: { S: 'run-1' },
      fence: { N: '1' },
      expiresAt: { N: '61000' },
    });
    expect(await store.acquireLease('run-2', new Date(2_000), 60_000)).toBeUndefined();
    await store.releaseLease(lease as NonNullable<typeof lease>);
    expect(await store.acquireLease('run-2', new Date(3_000), 60_000)).toMatchObject({ fence: 2 });
  });
});

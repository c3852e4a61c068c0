import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';

/**
 * DynamoDB may answer a BatchGetItem with only part of the keys (`UnprocessedKeys`: throttling, the 16 MB
 * answer limit); dynalite never does, so this fake client answers as scripted.
 */
function scriptedClient(
  answer: (keys: string[], call: number) => string[],
): DynamoDBClient & { calls: string[][] } {
  const calls: string[][] = [];
  const client = {
    calls,
    send: async (command: { input: { RequestItems: Record<string, { Keys: { pk: { S: string } }[] }> } }) => {
      const keys = (command.input.RequestItems.t?.Keys ?? []).map((k) => k.pk.S);
      calls.push(keys);
      const served = answer(keys, calls.length);
      const left = keys.filter((k) => !served.includes(k));
      return {
        Responses: { t: served.map((pk) => marshall({ pk, version: 1, data: '{}' })) },
        ...(left.length > 0 ? { UnprocessedKeys: { t: { Keys: left.map((pk) => marshall({ pk })) } } } : {}),
      };
    },
  };
  return client as unknown as DynamoDBClient & { calls: string[][] };
}

describe('dynamoVersionedItems.getMany', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks again for the keys an answer left unprocessed, in batches of at most 100', async () => {
    const client = scriptedClient((keys, call) => (call === 1 ? keys.slice(0, 40) : keys));
    const pks = Array.from({ length: 150 }, (_, i) => `DAY#${i}`);
    const found = await dynamoVersionedItems({ client, table: 't' }).getMany(pks);
    expect(found.map((i) => i.pk).sort()).toEqual([...pks].sort());
    expect(client.calls.map((c) => c.length)).toEqual([100, 60, 50]);
  });

  it('fails with STORE_FAILED when keys stay unprocessed answer after answer', async () => {
    vi.useFakeTimers();
    const client = scriptedClient(() => []);
    const pending = dynamoVersionedItems({ client, table: 't' })
      .getMany(['DAY#1', 'DAY#2'])
      .catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await pending).toMatchObject({ code: 'STORE_FAILED' });
    expect(client.calls).toHaveLength(6);
  });
});

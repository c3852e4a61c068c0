import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { stateStoreFromUrl } from '../../lib/archive/state/stateStoreFromUrl.ts';
import { BAD_STATE_URLS, itClosesItsOwnClient } from '../url/storeUrlCases.ts';

describe('stateStoreFromUrl', () => {
  const dynamoClient = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  afterAll(() => dynamoClient.destroy());

  it.each(['dynamodb://archive-state', 'dynamodb://my_table.v2/'])(
    'builds a DynamoDB store for %j',
    (url) => {
      const store = stateStoreFromUrl(url, { dynamoClient });
      expect(store.acquireLease).toBeTypeOf('function');
      expect(store.close).toBeUndefined();
    },
  );

  itClosesItsOwnClient('client', () => stateStoreFromUrl('dynamodb://archive-state'));

  it.each(BAD_STATE_URLS)('rejects %j with CONFIG_INVALID naming the expected form', (url) => {
    expect(() => stateStoreFromUrl(url, { dynamoClient })).toThrowError(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(
          `ARCHIVE_STATE must be dynamodb://TABLE (3-255 of a-z A-Z 0-9 _ . -), got '${url}'`,
        ),
      }),
    );
  });
});

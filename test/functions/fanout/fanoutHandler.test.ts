import { describe, expect, it } from 'vitest';
import { createFanoutHandler, stepError } from '../../../functions/fanout/fanoutHandler.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';
import type { StateStore } from '../../../lib/archive/state/statePorts.ts';
import type { ObjectStore } from '../../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../../lib/foundation/errors/archiverError.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';

/** The fan-out's handler with fakes: a state store whose lease was taken by another orchestration. */
function harness() {
  const calls = { published: 0, closed: 0, renewals: 0 };
  const handler = createFanoutHandler({
    config: loadConfig({ env: { ARCHIVE_DEST: 's3://archive-bucket/', ARCHIVE_STATE: 'dynamodb://state' } }),
    objects: { head: async () => undefined } as unknown as ObjectStore,
    state: {
      renewLease: async () => {
        calls.renewals++;
        throw new ArchiverError('LEASE_HELD', 'lease 3 of fanout:exec-1 was lost to another run');
      },
    } as unknown as StateStore,
    clock: new ManualClock('2026-11-20T06:00:00.000Z'),
    logger: silentLogger,
    metrics: { addMetric: () => undefined, publishStoredMetrics: () => void calls.published++ },
    getApiKey: async () => 'key',
    getKeys: async () => ({ tokenKey: new Uint8Array(32), signer: {} as never }),
    createApi: () => ({
      listActive: async () => [],
      historyPage: async () => ({}) as never,
      close: async () => void calls.closed++,
    }),
  });
  return { handler, calls };
}

const context = { getRemainingTimeInMillis: () => 600_000 };
const walkEvent = {
  step: 'walk',
  orchestrationId: 'exec-1',
  lease: { owner: 'fanout:exec-1', fence: 3, expiresAt: Date.parse('2026-11-20T08:00:00.000Z') },
  windowDays: 60,
  item: { kind: 'day', id: '2026-11-15', day: '2026-11-15', age: 5, reason: 'rescan' },
};

describe('the fan-out Lambda handler', () => {
  it('names its errors Archiver.<CODE>, what the state machine Retry and Catch match', async () => {
    const { handler, calls } = harness();
    await expect(handler({ step: 'dance' }, context)).rejects.toMatchObject({ name: 'Archiver.BAD_REQUEST' });
    await expect(handler(walkEvent, context)).rejects.toMatchObject({
      name: 'Archiver.LEASE_HELD',
      message: expect.stringMatching(/lost to another run/),
    });
    expect(calls.renewals).toBe(1);
    expect(calls.closed).toBe(1);
    expect(calls.published).toBe(1);
    expect(stepError(new ArchiverError('RATE_LIMITED', '429')).name).toBe('Archiver.RATE_LIMITED');
    expect(stepError(new TypeError('boom')).name).toBe('Archiver.INTERNAL');
  });
});

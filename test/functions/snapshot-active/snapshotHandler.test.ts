import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSnapshotHandler } from '../../../functions/snapshot-active/snapshotHandler.ts';
import { snapshotSettings } from '../../../functions/snapshot-active/snapshotSettings.ts';
import { SNAPSHOT_METRIC } from '../../../functions/snapshot-active/snapshotTelemetry.ts';
import type { SnapshotActiveResult } from '../../../lib/archive/active/snapshotActive.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';
import { tokenKeyFromSecret } from '../../../lib/archive/keys/tokenKeyFromSecret.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../../lib/foundation/errors/archiverError.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';
import { MemoryActiveState, MemoryRowSink, session } from '../../active/activeKit.ts';

const NOW = '2025-03-01T12:00:00.000Z';
const KEY = new Uint8Array(32).fill(1);

function harness(snapshot?: () => Promise<SnapshotActiveResult>) {
  const metrics: Record<string, number> = {};
  const calls = { closed: 0, published: 0 };
  const sink = new MemoryRowSink();
  const handler = createSnapshotHandler({
    config: loadConfig({ env: { ARCHIVE_DEST: 's3://archive-bucket/', ARCHIVE_STATE: 'dynamodb://state' } }),
    settings: { scheduleMs: 300_000 },
    state: new MemoryActiveState(),
    commitRows: sink.commitRows,
    clock: new ManualClock(NOW),
    logger: silentLogger,
    metrics: {
      addMetric: (name, _unit, value) => {
        metrics[name] = value;
      },
      publishStoredMetrics: () => {
        calls.published += 1;
      },
    },
    getApiKey: async () => 'k',
    getTokenKey: async () => KEY,
    createApi: () => ({
      listActive: async () => [
        session('old', { creationTimestamp: '2024-12-01T00:00:00Z' }),
        session('new', { creationTimestamp: NOW }),
      ],
      close: async () => {
        calls.closed += 1;
      },
    }),
    ...(snapshot === undefined ? {} : { snapshot }),
  });
  return { handler, metrics, calls, sink };
}

describe('createSnapshotHandler', () => {
  it('snapshots once, writes the rows and publishes LongSessions among its metrics', async () => {
    const { handler, metrics, calls, sink } = harness();
    const result = await handler({});
    expect(result.events.seen).toBe(2);
    expect(sink.rows()).toHaveLength(2);
    expect(metrics).toEqual({
      [SNAPSHOT_METRIC.LongSessions]: 1,
      [SNAPSHOT_METRIC.ActiveRows]: 2,
      [SNAPSHOT_METRIC.SnapshotGaps]: 0,
      [SNAPSHOT_METRIC.SnapshotSucceeded]: 1,
    });
    expect(calls).toEqual({ closed: 1, published: 1 });
  });

  it('re-throws a failure after recording it and closing the client', async () => {
    const { handler, metrics, calls } = harness(async () => {
      throw new ArchiverError('UPSTREAM_UNAVAILABLE', 'down');
    });
    await expect(handler({})).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(metrics).toEqual({ [SNAPSHOT_METRIC.SnapshotSucceeded]: 0 });
    expect(calls).toEqual({ closed: 1, published: 1 });
  });
});

describe('snapshotSettings', () => {
  it.each([
    [{}, 300_000],
    [{ SNAPSHOT_INTERVAL_MINUTES: '' }, 300_000],
    [{ SNAPSHOT_INTERVAL_MINUTES: '15' }, 900_000],
  ])('%j → %d ms', (env, ms) => {
    expect(snapshotSettings(loadConfig({ env })).scheduleMs).toBe(ms);
  });

  it('holds rows for SNAPSHOT_COMMIT_MINUTES (default 60; 0 commits every snapshot) before a commit', () => {
    expect(snapshotSettings(loadConfig({ env: {} })).commitEveryMs).toBe(3_600_000);
    expect(snapshotSettings(loadConfig({ env: { SNAPSHOT_COMMIT_MINUTES: '0' } })).commitEveryMs).toBe(0);
    expect(() => snapshotSettings(loadConfig({ env: { SNAPSHOT_COMMIT_MINUTES: '-1' } }))).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('rejects a bad interval with CONFIG_INVALID', () => {
    expect(() => snapshotSettings(loadConfig({ env: { SNAPSHOT_INTERVAL_MINUTES: '0' } }))).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});

describe('the snapshot function and the archiver derive one token key', () => {
  it('uses the same derivation as the archiver, so active and history HMACs join', async () => {
    // That the deployed snapshot function really keys its HMACs this way is shown by running its bundle
    // (test/infra/bundle.int.test.ts): its rows' HMACs equal this derivation of the same secret.
    const secret = 'a generated secret string of forty characters!';
    expect(tokenKeyFromSecret(secret, 's')).toEqual(
      new Uint8Array(createHash('sha256').update(secret, 'utf8').digest()),
    );
  });
});

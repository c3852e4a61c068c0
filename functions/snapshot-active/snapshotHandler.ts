import type { SnapshotActiveDeps, SnapshotActiveResult } from '../../lib/archive/active/snapshotActive.ts';
import { snapshotActive } from '../../lib/archive/active/snapshotActive.ts';
import type { Config } from '../../lib/archive/config/loadConfig.ts';
import type { LiveStore } from '../../lib/archive/state/statePorts.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import type { MetricsSink } from '../shared/archiveHandlerDeps.ts';
import type { SnapshotSettings } from './snapshotSettings.ts';
import { SNAPSHOT_METRIC } from './snapshotTelemetry.ts';

export interface SnapshotHandlerDeps {
  config: Config;
  settings: Pick<SnapshotSettings, 'scheduleMs'> & Partial<SnapshotSettings>;
  state: LiveStore;
  commitRows: SnapshotActiveDeps['commitRows'];
  rebuildFromArchive?: SnapshotActiveDeps['rebuildFromArchive'];
  /** The live detection rules on each snapshot (functions/shared/liveAlerts.ts). */
  afterSnapshot?: SnapshotActiveDeps['afterSnapshot'];
  clock: Clock;
  logger: Logger;
  metrics: MetricsSink;
  getApiKey(): Promise<string>;
  getTokenKey(): Promise<Uint8Array>;
  createApi(apiKey: string): Pick<UpstreamApi, 'listActive'> & { close(): Promise<void> };
  /** The orchestration; injectable so the handler's own behaviour is testable without it. */
  snapshot?: typeof snapshotActive;
}

/**
 * The snapshot Lambda without AWS: one `snapshotActive` per invocation (any event), metrics always
 * published. It takes no lease: the archiver's lease covers history only, and concurrent snapshots are
 * settled by the state's conditional write. A failure is re-thrown so Lambda's retries see it.
 */
export function createSnapshotHandler(deps: SnapshotHandlerDeps) {
  const snapshot = deps.snapshot ?? snapshotActive;
  const { logger, metrics } = deps;
  return async (_event: unknown): Promise<SnapshotActiveResult> => {
    try {
      const api = deps.createApi(await deps.getApiKey());
      let result: SnapshotActiveResult;
      try {
        result = await snapshot(
          {
            api,
            state: deps.state,
            commitRows: deps.commitRows,
            ...(deps.rebuildFromArchive === undefined ? {} : { rebuildFromArchive: deps.rebuildFromArchive }),
            ...(deps.afterSnapshot === undefined ? {} : { afterSnapshot: deps.afterSnapshot }),
            clock: deps.clock,
            logger,
            tokenKey: await deps.getTokenKey(),
          },
          {
            tokenPolicy: deps.config.tokenValues,
            windowDays: deps.config.windowDays,
            scheduleMs: deps.settings.scheduleMs,
            ...(deps.settings.commitEveryMs === undefined
              ? {}
              : { commitEveryMs: deps.settings.commitEveryMs }),
          },
        );
      } finally {
        await api.close();
      }
      const { seen, changed, gone } = result.events;
      metrics.addMetric(SNAPSHOT_METRIC.LongSessions, 'Count', result.longSessions.length);
      metrics.addMetric(SNAPSHOT_METRIC.ActiveRows, 'Count', seen + changed + gone);
      metrics.addMetric(SNAPSHOT_METRIC.SnapshotGaps, 'Count', result.gap === undefined ? 0 : 1);
      metrics.addMetric(SNAPSHOT_METRIC.SnapshotSucceeded, 'Count', 1);
      return result;
    } catch (error) {
      metrics.addMetric(SNAPSHOT_METRIC.SnapshotSucceeded, 'Count', 0);
      logger.error('snapshot failed', {
        code: ArchiverError.is(error) ? error.code : 'INTERNAL',
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

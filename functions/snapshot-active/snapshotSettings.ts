import type { Config } from '../../lib/archive/config/loadConfig.ts';

/** Settings only the snapshot function reads (validated with the rest by `loadConfig`). */
export interface SnapshotSettings {
  /** The schedule the stack runs the function on; gaps are measured against it. */
  scheduleMs: number;
  /** How long rows are held in the state before they are committed as one file (`SNAPSHOT_COMMIT_MINUTES`). */
  commitEveryMs: number;
}

/** The snapshot settings of a resolved config, in milliseconds. */
export function snapshotSettings(
  config: Pick<Config, 'snapshotIntervalMinutes' | 'snapshotCommitMinutes'>,
): SnapshotSettings {
  return {
    scheduleMs: config.snapshotIntervalMinutes * 60_000,
    commitEveryMs: config.snapshotCommitMinutes * 60_000,
  };
}

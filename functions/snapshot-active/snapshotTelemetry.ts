/**
 * Metric names of the snapshot function, shared by the handler (which emits) and the stack (whose
 * alarms may watch). Same namespace and service as the archiver.
 */
export { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/telemetryNames.ts';

export const SNAPSHOT_METRIC = {
  /** Live sessions open longer than (window − 2) days: history will never show them. */
  LongSessions: 'LongSessions',
  /** Rows derived from this snapshot (seen + changed + gone). */
  ActiveRows: 'ActiveRows',
  /** 1 when the previous snapshot is more than twice the schedule old. */
  SnapshotGaps: 'SnapshotGaps',
  /** 1 for a snapshot stored, 0 for a failed one. */
  SnapshotSucceeded: 'SnapshotSucceeded',
} as const;

export type SnapshotMetricName = (typeof SNAPSHOT_METRIC)[keyof typeof SNAPSHOT_METRIC];

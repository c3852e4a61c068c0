import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { METRIC, type MetricName } from './telemetryNames.ts';

/** One CloudWatch data point (all counts). */
export interface MetricPoint {
  name: MetricName;
  value: number;
}

/** The data points of a finished run; every metric is written every run so alarms see zeros, not gaps. */
export function summaryMetrics(summary: RunSummary): MetricPoint[] {
  return [
    { name: METRIC.RecordsArchived, value: summary.recordsNew },
    { name: METRIC.Shortfalls, value: summary.shortfalls.length },
    { name: METRIC.DaysAtRisk, value: summary.atRisk.length },
    { name: METRIC.Gaps, value: summary.gaps.length },
    { name: METRIC.DaysDeferred, value: summary.daysDeferred },
    { name: METRIC.DayFailures, value: summary.failedDays.length },
    { name: METRIC.DayFailureStreak, value: Math.max(0, ...summary.failedDays.map((d) => d.attempts)) },
    { name: METRIC.BrokenPartitions, value: summary.brokenPartitions.length },
    { name: METRIC.StagedFilesChanged, value: summary.changedStagedFiles?.length ?? 0 },
    { name: METRIC.UnpublishedFileAgeHours, value: summary.oldestUnpublishedHours },
    { name: METRIC.AuthFailures, value: 0 },
    { name: METRIC.RunSucceeded, value: 1 },
    ...(summary.digest ? [{ name: METRIC.ChainHeadSeq, value: summary.digest.seq }] : []),
    ...walkProgressMetrics(summary),
  ];
}

/** How the walks went: pages fetched, walks the deadline cut, and the pages the furthest-behind one still needs. */
function walkProgressMetrics(summary: RunSummary): MetricPoint[] {
  const cut = summary.days.filter((d) => d.interrupted);
  return [
    { name: METRIC.PagesFetched, value: summary.days.reduce((n, d) => n + d.pagesThisRun, 0) },
    { name: METRIC.WalksCut, value: cut.length },
    { name: METRIC.WalkPagesLeft, value: Math.max(0, ...cut.map((d) => d.outlook?.pagesLeft ?? 0)) },
  ];
}

/** True for the failures a person must fix in the Pinggy dashboard or the secret (key or plan). */
export function isAuthFailure(error: unknown): boolean {
  return ArchiverError.is(error, 'AUTH_REJECTED') || ArchiverError.is(error, 'PLAN_REQUIRED');
}

/** The data points of a failed run: no success, and whether it failed on the key or the plan. */
export function failureMetrics(error: unknown): MetricPoint[] {
  return [
    { name: METRIC.AuthFailures, value: isAuthFailure(error) ? 1 : 0 },
    { name: METRIC.RunSucceeded, value: 0 },
  ];
}

import { describe, expect, it } from 'vitest';
import { failureMetrics, summaryMetrics } from '../../../functions/shared/runMetrics.ts';
import { ArchiverError, type ArchiverErrorCode } from '../../../lib/foundation/errors/archiverError.ts';
import { dayResult, runSummary } from '../archive-history/runSummaryFixture.ts';

const byName = (points: { name: string; value: number }[]) =>
  Object.fromEntries(points.map((p) => [p.name, p.value]));

describe('summaryMetrics', () => {
  it('counts new records, shortfall days, days at risk, gaps and deferred days of a run', () => {
    const summary = runSummary({
      recordsNew: 42,
      shortfalls: [
        { day: '2025-02-01', shortfall: 3 },
        { day: '2025-02-02', shortfall: 1 },
      ],
      atRisk: ['2024-12-10'],
      gaps: ['2024-12-08', '2024-12-09', '2024-12-07'],
      daysDeferred: 5,
      failedDays: [
        { day: '2025-01-20', code: 'PAGE_LIMIT', message: 'x', attempts: 3 },
        { day: '2025-01-21', code: 'SCHEMA_MISMATCH', message: 'y', attempts: 1 },
      ],
      brokenPartitions: ['history/dt=2025-01-02'],
      oldestUnpublishedHours: 30.5,
      changedStagedFiles: [
        '_staging/history/r1/dt=2025-01-03/a.parquet',
        '_staging/history/r1/dt=2025-01-04/b.parquet',
      ],
    });
    expect(byName(summaryMetrics(summary))).toEqual({
      RecordsArchived: 42,
      Shortfalls: 2,
      DaysAtRisk: 1,
      Gaps: 3,
      DaysDeferred: 5,
      DayFailures: 2,
      DayFailureStreak: 3,
      BrokenPartitions: 1,
      UnpublishedFileAgeHours: 30.5,
      StagedFilesChanged: 2,
      AuthFailures: 0,
      RunSucceeded: 1,
      PagesFetched: 0,
      WalksCut: 0,
      WalkPagesLeft: 0,
    });
  });

  it('counts the pages fetched, the walks the deadline cut and the pages the furthest-behind one still needs', () => {
    const summary = runSummary({
      days: [
        dayResult({
          day: '2025-02-01',
          pagesThisRun: 40,
          interrupted: true,
          outlook: { pagesLeft: 120, evidence: [] },
        }),
        dayResult({
          day: '2025-02-02',
          pagesThisRun: 25,
          interrupted: true,
          outlook: { pagesLeft: 300, evidence: [] },
        }),
        dayResult({ day: '2025-02-03', pagesThisRun: 3 }),
      ],
    });
    expect(byName(summaryMetrics(summary))).toMatchObject({
      PagesFetched: 68,
      WalksCut: 2,
      WalkPagesLeft: 300,
    });
  });

  it('writes zeros for a quiet run, so alarms see data rather than gaps', () => {
    expect(byName(summaryMetrics(runSummary()))).toMatchObject({
      RecordsArchived: 0,
      DaysAtRisk: 0,
      Gaps: 0,
      DayFailures: 0,
      DayFailureStreak: 0,
      BrokenPartitions: 0,
      UnpublishedFileAgeHours: 0,
      RunSucceeded: 1,
      PagesFetched: 0,
      WalksCut: 0,
      WalkPagesLeft: 0,
    });
  });
});

describe('failureMetrics', () => {
  it.each<[string, unknown, number]>([
    ['AUTH_REJECTED', new ArchiverError('AUTH_REJECTED', 'no'), 1],
    ['PLAN_REQUIRED', new ArchiverError('PLAN_REQUIRED', 'no'), 1],
    ...(['UPSTREAM_UNAVAILABLE', 'CONFIG_INVALID', 'LEASE_HELD', 'BAD_REQUEST'] as ArchiverErrorCode[]).map(
      (code): [string, unknown, number] => [code, new ArchiverError(code, 'no'), 0],
    ),
    ['a plain Error', new Error('boom'), 0],
  ])('records no success and AuthFailures for %s', (_name, error, auth) => {
    expect(byName(failureMetrics(error))).toEqual({ AuthFailures: auth, RunSucceeded: 0 });
  });
});

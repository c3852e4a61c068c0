import { archiveOptionsFromConfig } from '../../lib/archive/config/archiveOptionsFromConfig.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { updateMeta } from '../../lib/archive/state/updateMeta.ts';
import { budgetFromRemaining } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { checkChecksumReports } from '../../lib/integrity/verify/checkChecksumReport.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { verifyWeekly, type WeeklyVerifyResult } from '../../lib/integrity/verify/verifyWeekly.ts';
import type { ArchiveHandlerDeps, InvocationContext, PublishReport } from '../shared/archiveHandlerDeps.ts';
import { failureMetrics, type MetricPoint, summaryMetrics } from '../shared/runMetrics.ts';
import { METRIC } from '../shared/telemetryNames.ts';
import { parseArchiveEvent } from './parseArchiveEvent.ts';

/** What judging the checksum reports did: jobs judged, failures found, jobs still running. */
export interface ChecksumReportsSummary {
  judged: number;
  failures: number;
  waiting: number;
}

/** The report writer, imported only when a verify has a result to show (its chart libraries are big). */
const lazyPublishReport: PublishReport = async (deps, options) =>
  (await import('../../lib/integrity/report/publishReport.ts')).publishReport(deps, options);

/**
 * The Lambda's behaviour without AWS: validate the event, run the engine against a deadline from the
 * remaining time, and always publish metrics. A failed run is re-thrown (after the metrics) so Lambda's
 * Errors metric, retries and failure destination see it.
 */
export function createArchiveHandler(deps: ArchiveHandlerDeps) {
  const run = deps.run ?? runArchive;
  const { logger, metrics, clock } = deps;
  const record = (points: MetricPoint[]) => {
    for (const p of points) metrics.addMetric(p.name, 'Count', p.value);
  };

  const verify = deps.verify ?? verifyWeekly;

  /**
   * `{ "verify": true }`: the weekly check (new work in full, a rotating slice of the rest, bounded in the
   * archive's age) plus the API comparison; failures are counted and logged one by one, and where it
   * stands is recorded in META (`verified`), which `status` and the report show.
   */
  const runVerify = async (): Promise<VerifyResult> => {
    logger.info('verify starting', {});
    const api = deps.createApi(await deps.getApiKey());
    const { tokenKey } = await deps.getKeys();
    // The head every run records in the state table: a bucket writer who removes the newest digests
    // cannot also rewind it, so the weekly check notices a truncated chain.
    const meta = await deps.state.getMeta();
    const head = meta?.chainHead;
    let result: VerifyResult | WeeklyVerifyResult;
    try {
      result = await verify(
        { objects: deps.objects, clock, ...(deps.checksumJobs ? { jobs: deps.checksumJobs } : {}) },
        {
          api,
          tokenKey,
          windowDays: deps.config.windowDays,
          pageSize: deps.config.pageSize,
          ...(head
            ? { expectedHeads: [{ seq: head.seq, sha256: head.sha256, source: 'the state table' }] }
            : {}),
          ...(meta?.verified ? { progress: meta.verified } : {}),
        },
      );
    } finally {
      await api.close();
    }
    if ('weekly' in result) await recordProgress(result.weekly.progress);
    metrics.addMetric(METRIC.VerifyFailures, 'Count', result.failures.length);
    metrics.addMetric(METRIC.VerifyPending, 'Count', result.pending);
    for (const f of result.failures) logger.error('verify failure', { ...f });
    const { days: _days, failures, ...totals } = result as WeeklyVerifyResult;
    logger.info('verify finished', { ...totals, failures: failures.length });
    // The weekly picture of the archive: a report that cannot be written is logged, and the verify
    // result (its metrics and alarm) stands.
    try {
      const written = await (deps.publishReport ?? lazyPublishReport)(
        { objects: deps.objects, state: deps.state, clock },
        { windowDays: deps.config.windowDays, verify: result },
      );
      logger.info('report written', written);
    } catch (error) {
      logger.error('report not written', { error: (error as Error).message });
    }
    return result;
  };

  /** Where the weekly verify stands, in META; its head only moves forward (a slower verify never rewinds it). */
  const recordProgress = async (progress: WeeklyVerifyResult['weekly']['progress']): Promise<void> => {
    try {
      await updateMeta(deps.state, (fresh) =>
        (fresh.verified?.head.seq ?? 0) > progress.head.seq ? undefined : { ...fresh, verified: progress },
      );
    } catch (error) {
      logger.warn('could not record the weekly verify in META', { error: (error as Error).message });
    }
  };

  /**
   * `{ "checksumReports": true }`: judges the reports of the weekly verify's checksum jobs that are done
   * (`checkChecksumReports`), apart from the weekly verify so that its own work stays flat; failures are
   * counted and logged now, and the verdicts wait in META for the next weekly verify and the report.
   */
  const runChecksumReports = async (): Promise<ChecksumReportsSummary> => {
    const jobs = deps.checksumJobs;
    const checksums = (await deps.state.getMeta())?.verified?.checksums;
    if (!jobs || !checksums) return { judged: 0, failures: 0, waiting: checksums?.jobs.length ?? 0 };
    const { judged } = await checkChecksumReports({ objects: deps.objects, jobs }, checksums, clock.now());
    const done = new Set(judged.map((v) => v.id));
    await updateMeta(deps.state, (fresh) => {
      const now = fresh.verified?.checksums;
      if (!fresh.verified || !now) return undefined;
      const lastChecked = { ...now.lastChecked };
      for (const { failures: _f, ...summary } of judged) lastChecked[summary.kind] = summary;
      const next = {
        ...now,
        jobs: now.jobs.filter((j) => !done.has(j.id)),
        verdicts: [...now.verdicts.filter((v) => !done.has(v.id)), ...judged],
        lastChecked,
      };
      return { ...fresh, verified: { ...fresh.verified, checksums: next } };
    });
    const failures = judged.flatMap((v) => v.failures);
    metrics.addMetric(METRIC.VerifyFailures, 'Count', failures.length);
    for (const f of failures) logger.error('verify failure', { ...f });
    const summary = {
      judged: judged.length,
      failures: failures.length,
      waiting: checksums.jobs.length - judged.length,
    };
    logger.info('checksum reports judged', summary);
    return summary;
  };

  return async (
    event: unknown,
    context: InvocationContext,
  ): Promise<RunSummary | VerifyResult | ChecksumReportsSummary> => {
    try {
      const request = parseArchiveEvent(event);
      if (request.kind === 'verify') return await runVerify();
      if (request.kind === 'checksum-reports') return await runChecksumReports();
      // The run's one deadline: Lambda's hard timeout, less the one reserve (DEADLINE_RESERVE_MS) kept for
      // committing what the walks hold, the digest, the lease and flushing metrics.
      const budget = budgetFromRemaining(
        clock,
        context.getRemainingTimeInMillis(),
        deps.config.deadlineReserveMs,
      );
      const options = archiveOptionsFromConfig(deps.config, {
        budget,
        ...(request.kind === 'backfill' ? { onlyDays: request.days } : {}),
      });
      logger.info('run starting', {
        request,
        deadline: budget.endsAt?.toISOString(),
        stopAt: budget.stopAt?.toISOString(),
      });
      const api = deps.createApi(await deps.getApiKey());
      let summary: RunSummary;
      try {
        const keys = await deps.getKeys();
        summary = await run(
          { api, objects: deps.objects, state: deps.state, clock, logger, ...keys },
          options,
        );
      } finally {
        await api.close();
      }
      record(summaryMetrics(summary));
      const { days, ...totals } = summary;
      for (const f of summary.failedDays) logger.error('day failed', { ...f });
      if (summary.failedDays.length > 0) {
        // Partial: reported (logs, DayFailures, DayFailureStreak alarm), not thrown, so Lambda's own retries
        // do not re-run the days that succeeded; the failed days are due again on the next schedule.
        logger.error('run finished with failed days', { ...totals, daysReported: days.length });
      } else {
        logger.info('run finished', { ...totals, daysReported: days.length });
      }
      return summary;
    } catch (error) {
      record(failureMetrics(error));
      logger.error('run failed', describeError(error));
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof ArchiverError) {
    return { code: error.code, retryable: error.retryable, status: error.status, error: error.message };
  }
  return { code: 'INTERNAL', error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}

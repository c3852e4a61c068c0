import * as z from 'zod';
import { archiveOptionsFromConfig } from '../../lib/archive/config/archiveOptionsFromConfig.ts';
import { budgetFromRemaining } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import type { ArchiveHandlerDeps, InvocationContext } from '../shared/archiveHandlerDeps.ts';
import { failureMetrics, summaryMetrics } from '../shared/runMetrics.ts';
import { stepError } from '../shared/stepError.ts';
import type { EngineCall } from './engineCall.ts';

export { stepError };

import { finishStep, finishStepEvent } from './finishStep.ts';
import { planStep, planStepEvent } from './planStep.ts';
import { walkStep, walkStepEvent } from './walkStep.ts';

/** What the state machine sends: which step, and that step's input (see infra/constructs/fanoutOrchestration.ts). */
const stepEvent = z.discriminatedUnion('step', [planStepEvent, walkStepEvent, finishStepEvent]);

/**
 * The fan-out's Lambda (plan, walk, finish: one function, the step named in the event): parses the event,
 * runs the step's engine function under a deadline from the remaining time, publishes metrics. An error
 * leaves as `Archiver.<CODE>`, the name the state machine's Retry and Catch match (a 429 storm is
 * `Archiver.RATE_LIMITED`: the map backs off and retries the item, it does not fail).
 */
export function createFanoutHandler(deps: ArchiveHandlerDeps) {
  const withEngine = async <T>(context: InvocationContext, call: EngineCall<T>): Promise<T> => {
    // The step's one deadline, as the archiver's: Lambda's hard timeout less DEADLINE_RESERVE_MS.
    const budget = budgetFromRemaining(
      deps.clock,
      context.getRemainingTimeInMillis(),
      deps.config.deadlineReserveMs,
    );
    const options = archiveOptionsFromConfig(deps.config, { budget });
    const api = deps.createApi(await deps.getApiKey());
    try {
      const keys = await deps.getKeys();
      const { objects, state, clock, logger } = deps;
      return await call({ api, objects, state, clock, logger, ...keys }, options);
    } finally {
      await api.close();
    }
  };
  return async (event: unknown, context: InvocationContext): Promise<unknown> => {
    const parsed = stepEvent.safeParse(event);
    if (!parsed.success) {
      throw stepError(
        new ArchiverError('BAD_REQUEST', `not a fan-out step: ${z.prettifyError(parsed.error)}`),
      );
    }
    const request = parsed.data;
    try {
      if (request.step === 'plan') return await withEngine(context, planStep(request));
      if (request.step === 'walk') return await withEngine(context, walkStep(request));
      const summary = await withEngine(context, finishStep(request));
      for (const p of summaryMetrics(summary)) deps.metrics.addMetric(p.name, 'Count', p.value);
      for (const f of summary.failedDays) deps.logger.error('day failed', { ...f });
      const { days, ...totals } = summary;
      deps.logger.info('fan-out finished', { ...totals, daysReported: days.length });
      return totals;
    } catch (error) {
      if (request.step !== 'walk')
        for (const p of failureMetrics(error)) deps.metrics.addMetric(p.name, 'Count', p.value);
      deps.logger.error(`fan-out ${request.step} failed`, {
        code: ArchiverError.is(error) ? error.code : 'INTERNAL',
        error: error instanceof Error ? error.message : String(error),
      });
      throw stepError(error);
    } finally {
      deps.metrics.publishStoredMetrics();
    }
  };
}

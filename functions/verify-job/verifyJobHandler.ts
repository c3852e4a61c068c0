import * as z from 'zod';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import { mergeVerifyJob } from '../../lib/integrity/verify/mergeVerifyJob.ts';
import { planVerifyJob } from '../../lib/integrity/verify/planVerifyJob.ts';
import { verifyJobItem } from '../../lib/integrity/verify/verifyJobItem.ts';
import { verifyJobIdSchema, verifyJobItemSchema } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { stepError } from '../shared/stepError.ts';

/** What the verify job's state machine sends (infra/constructs/verifyJob.ts): which step, and its input. */
export const verifyJobEvent = z.discriminatedUnion('step', [
  z.strictObject({ step: z.literal('plan'), jobId: verifyJobIdSchema }),
  z.strictObject({
    step: z.literal('item'),
    jobId: verifyJobIdSchema,
    head: z.object({ seq: z.number().int().positive(), key: z.string(), sha256: z.string() }).nullable(),
    item: verifyJobItemSchema,
  }),
  z.strictObject({ step: z.literal('merge'), jobId: verifyJobIdSchema }),
]);

/**
 * The verify job's Lambda (plan, item, merge: one function, the step named in the event). Read-only on the
 * archive; it writes only under `verify-jobs/` and the last full verify. An error leaves as `Archiver.<CODE>`.
 */
export function createVerifyJobHandler(deps: { objects: ObjectStore; clock: Clock; logger: Logger }) {
  return async (event: unknown): Promise<unknown> => {
    const parsed = verifyJobEvent.safeParse(event);
    if (!parsed.success) {
      throw stepError(
        new ArchiverError('BAD_REQUEST', `not a verify job step: ${z.prettifyError(parsed.error)}`),
      );
    }
    const request = parsed.data;
    try {
      if (request.step === 'plan') return await planVerifyJob(deps, request.jobId);
      if (request.step === 'item') return await verifyJobItem(deps, request, request.item);
      const result = await mergeVerifyJob(deps, request.jobId);
      const { failures, ...totals } = result;
      for (const f of failures.slice(0, 100)) deps.logger.error('verify job failure', { ...f });
      deps.logger.info('verify job finished', { ...totals, failures: failures.length });
      // The execution's output: the totals and the first failures (the whole result is stored under the job).
      return { ...totals, failures: failures.length, firstFailures: failures.slice(0, 20) };
    } catch (error) {
      deps.logger.error(`verify job ${request.step} failed`, {
        code: ArchiverError.is(error) ? error.code : 'INTERNAL',
        error: error instanceof Error ? error.message : String(error),
      });
      throw stepError(error);
    }
  };
}

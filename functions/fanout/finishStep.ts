import * as z from 'zod';
import { fanoutPlanOutputSchema } from '../../lib/archive/fanout/fanoutTypes.ts';
import { finishFanout } from '../../lib/archive/fanout/finishFanout.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import type { EngineCall } from './engineCall.ts';

/** `{ step: 'finish', plan }`: the plan step's output, passed through the map. */
export const finishStepEvent = z.strictObject({ step: z.literal('finish'), plan: fanoutPlanOutputSchema });

/** The finish step: the single writer of the ranged days, the digest, META and the run summary. */
export const finishStep =
  (e: z.infer<typeof finishStepEvent>): EngineCall<RunSummary> =>
  (deps, options) =>
    finishFanout(deps, options, e.plan);

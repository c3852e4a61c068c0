import * as z from 'zod';
import type { FanoutPlanOutput } from '../../lib/archive/fanout/fanoutTypes.ts';
import { planFanout } from '../../lib/archive/fanout/planFanout.ts';
import type { EngineCall } from './engineCall.ts';

/** `{ step: 'plan', orchestrationId, rangePages, leaseTtlSeconds }`: the execution's name and the stack's settings. */
export const planStepEvent = z.strictObject({
  step: z.literal('plan'),
  orchestrationId: z.string().min(1).max(80),
  rangePages: z.number().int().positive(),
  leaseTtlSeconds: z.number().int().positive(),
});

/** The plan step: the due days and the ranges of giant days, under a lease held by the orchestration. */
export const planStep =
  (e: z.infer<typeof planStepEvent>): EngineCall<FanoutPlanOutput> =>
  (deps, options) =>
    planFanout(deps, options, {
      orchestrationId: e.orchestrationId,
      rangePages: e.rangePages,
      leaseTtlMs: e.leaseTtlSeconds * 1000,
    });

import * as z from 'zod';
import { fanoutWalkInputSchema } from '../../lib/archive/fanout/fanoutTypes.ts';
import { walkFanoutItem } from '../../lib/archive/fanout/walkFanoutItem.ts';
import type { EngineCall } from './engineCall.ts';

/** `{ step: 'walk', orchestrationId, lease, windowDays, item }`: one item of the map. */
export const walkStepEvent = fanoutWalkInputSchema.extend({ step: z.literal('walk') });

/** The walk step: one day, or one page range of a giant day; returns a small outcome (no ids, no rows). */
export const walkStep =
  (e: z.infer<typeof walkStepEvent>): EngineCall<{ id: string; day: string; ok: boolean; code?: string }> =>
  async (deps, options) => {
    const { step: _step, ...input } = e;
    const o = await walkFanoutItem(deps, options, input);
    return { id: o.id, day: o.day, ok: o.ok, ...(o.code ? { code: o.code } : {}) };
  };

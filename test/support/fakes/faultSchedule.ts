import fc from 'fast-check';
import type { FaultKind, FaultSchedule } from '../../../devkit/fakes/faultPlan.ts';

export interface FaultScheduleArbOptions {
  /** Steps a fault may land on: 1..maxStep. */
  maxStep: number;
  /** Most faults per schedule (default 4). */
  maxFaults?: number;
  /** Whether a crash point may be generated (default true). */
  crash?: boolean;
}

/**
 * fast-check arbitrary of {@link FaultSchedule}s: a few faults at distinct global steps (each a lost
 * response, reported as unknown or replayed like an SDK retry, or a plain failure), and maybe a crash
 * point. Shrinks towards fewer faults, earlier steps and no crash.
 */
export function faultScheduleArb(options: FaultScheduleArbOptions): fc.Arbitrary<FaultSchedule> {
  const fault = fc.record({
    step: fc.integer({ min: 1, max: options.maxStep }),
    fault: fc.constantFrom<FaultKind>('lostResponse', 'fail'),
    mode: fc.constantFrom<'unknown' | 'retry'>('unknown', 'retry'),
  });
  const faults = fc.uniqueArray(fault, {
    maxLength: options.maxFaults ?? 4,
    selector: (f) => f.step,
  });
  const crashAfter =
    options.crash === false
      ? fc.constant(undefined)
      : fc.option(fc.integer({ min: 0, max: options.maxStep }), { nil: undefined });
  return fc.record({ faults, crashAfter }).map(({ faults: fs, crashAfter: c }) => ({
    faults: fs,
    ...(c === undefined ? {} : { crashAfter: c }),
  }));
}

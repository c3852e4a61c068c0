import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { VERIFY_JOB_CONCURRENCY } from '../../infra/constructs/verifyJob.ts';
import { reservedInAll } from '../../infra/reservedConcurrency.ts';
import { readStackSettings } from '../../infra/stackSettings.ts';
import { LAKE_CONTEXT } from './lakeSource.ts';

/** A new account's Lambda concurrency quota is often 10; Lambda keeps 10 unreserved whatever the quota. */
/** Every opt-in on (the Security Lake export too), so every function the stack can have is there. */
const functionsOf = (context: Record<string, unknown> = {}) =>
  synthApp({
    context: { ...LAKE_CONTEXT, ...context },
  }).template.findResources('AWS::Lambda::Function');

describe('a stack that deploys into a new account', () => {
  it('reserves no concurrency by default: no function has ReservedConcurrentExecutions', () => {
    const functions = functionsOf();
    expect(Object.keys(functions).length).toBeGreaterThanOrEqual(6);
    const reserving = Object.entries(functions)
      .filter(([, f]) => f.Properties?.ReservedConcurrentExecutions !== undefined)
      .map(([id]) => id);
    expect(reserving).toEqual([]);
    expect(reservedInAll(functions)).toBe(0);
  });

  it('reserves each function’s concurrency with the reservedConcurrency context, the fan-out and verify job their map’s plus one', () => {
    const on = synthApp({ context: { reservedConcurrency: 'true' } });
    const props = (fn: { node: { defaultChild?: unknown } }) =>
      on.template.toJSON().Resources[on.stack.getLogicalId(fn.node.defaultChild as never)].Properties;
    const fanoutConcurrency = readStackSettings(() => undefined).fanoutConcurrency;
    expect(props(on.stack.archiver.fn).ReservedConcurrentExecutions).toBe(1);
    expect(props(on.stack.snapshots.fn).ReservedConcurrentExecutions).toBe(1);
    expect(props(on.stack.detections.fn).ReservedConcurrentExecutions).toBe(1);
    expect(props(on.stack.fanout.fn).ReservedConcurrentExecutions).toBe(fanoutConcurrency + 1);
    expect(props(on.stack.verifyJob.fn).ReservedConcurrentExecutions).toBe(VERIFY_JOB_CONCURRENCY + 1);
  });

  it('refuses a reservedConcurrency that is not a boolean, at synth', () => {
    expect(() => synthApp({ context: { reservedConcurrency: 'sometimes' } })).toThrow(/reservedConcurrency/);
  });
});

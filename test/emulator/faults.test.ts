import { describe, expect, it } from 'vitest';
import { FaultInjector, NO_FAULTS, outageFor, resolveFaults } from '../../lib/archive/emulator/faults.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

describe('resolveFaults', () => {
  it('turns everything off by default', () => {
    expect(resolveFaults()).toEqual(NO_FAULTS);
  });

  it.each([{ rate429: 1.5 }, { rate5xx: -0.1 }, { delayMs: 2.5 }, { retryAfter: 'later' as never }])(
    'rejects %j as CONFIG_INVALID',
    (bad) => {
      let caught: unknown;
      try {
        resolveFaults(bad);
      } catch (error) {
        caught = error;
      }
      expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    },
  );
});

describe('outageFor', () => {
  it('ends the outage ms after the given wall time', () => {
    expect(outageFor(5_000, 1_000)).toEqual({ outage: { untilMs: 6_000 } });
  });
});

describe('FaultInjector', () => {
  const run = (seed: number, n: number) => {
    const f = new FaultInjector(seed, { rate429: 0.2, rate5xx: 0.2, rateReset: 0.1 });
    return Array.from({ length: n }, () => f.decide(0).kind);
  };

  it('repeats the same fault schedule for the same seed', () => {
    expect(run(5, 200)).toEqual(run(5, 200));
    expect(run(5, 200)).not.toEqual(run(6, 200));
  });

  it('injects faults at roughly the configured rates', () => {
    const kinds = run(5, 2000);
    const share = (k: string) => kinds.filter((x) => x === k).length / kinds.length;
    expect(share('429')).toBeGreaterThan(0.15);
    expect(share('429')).toBeLessThan(0.25);
    expect(share('none')).toBeGreaterThan(0.4);
  });

  it('answers 503 during an outage and nothing after it', () => {
    const f = new FaultInjector(1, outageFor(10_000, 0));
    expect(f.decide(9_000)).toEqual({ kind: 'outage', retryAfterSeconds: 1 });
    expect(f.decide(10_000)).toEqual({ kind: 'none' });
  });

  it('replaces the whole config on set', () => {
    const f = new FaultInjector(1, { rate429: 1, stableOrder: true });
    f.set({});
    expect(f.config).toEqual(NO_FAULTS);
    expect(f.decide(0).kind).toBe('none');
  });
});

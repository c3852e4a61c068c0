import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  RetryPolicy,
} from '../../lib/archive/upstream/retryPolicy.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const fixed = (r: number) => () => r;

describe('RetryPolicy', () => {
  it('defaults to 10 attempts, 500 ms base, 20 s cap and a 120 s budget', () => {
    expect(new RetryPolicy().options).toEqual({
      maxAttempts: 10,
      baseDelayMs: 500,
      maxDelayMs: 20_000,
      budgetMs: 120_000,
    });
    expect(DEFAULT_RETRY_POLICY.budgetMs).toBeGreaterThanOrEqual(60_000);
  });

  it.each([
    // attempt, random, retryAfterMs, expected delay
    [1, 0.5, undefined, 250],
    [2, 0.5, undefined, 500],
    [3, 0.999, undefined, 1998],
    [4, 0, undefined, 0],
    [7, 0.5, undefined, 10_000], // window 32 s capped to 20 s
    [30, 0.999, undefined, 19_980], // no overflow far out
    [1, 0, 3_000, 3_000], // Retry-After is a floor
    [6, 0.9, 1_000, 14_400], // backoff longer than Retry-After wins
    [1, 0.5, 60_000, 60_000], // Retry-After beyond maxDelay is still honoured
    [1, 0.5, 1_200.4, 1_201], // rounded up, never shorter
  ])(
    'delayFor(attempt %i) with random %f and Retry-After %s is %i ms',
    (attempt, random, retryAfterMs, expected) => {
      const policy = new RetryPolicy({}, fixed(random));
      expect(policy.delayFor(attempt, retryAfterMs)).toBe(expected);
    },
  );

  it.each([
    ['attempts are used up', 10, 0, undefined, undefined],
    ['the budget is spent', 3, 120_000, undefined, undefined],
    ['Retry-After outlasts the remaining budget', 1, 100_000, 30_000, undefined],
    ['Retry-After fits the remaining budget', 1, 100_000, 20_000, 20_000],
    ['backoff is clipped to the remaining budget', 9, 119_900, undefined, 100],
    ['plain backoff otherwise', 2, 1_000, undefined, 500],
  ])('next() when %s', (_what, attempt, elapsedMs, retryAfterMs, expected) => {
    const policy = new RetryPolicy({}, fixed(0.5));
    expect(policy.next(attempt, elapsedMs, retryAfterMs)).toBe(expected);
  });

  it.each([
    [{ maxAttempts: 0 }],
    [{ baseDelayMs: -1 }],
    [{ budgetMs: Number.NaN }],
    [{ maxDelayMs: Number.POSITIVE_INFINITY }],
  ])('rejects %o as CONFIG_INVALID', (options) => {
    expect(() => new RetryPolicy(options)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new RetryPolicy(options)).toThrow(ArchiverError);
  });

  it('rides out a 40 s outage on a fake clock with the defaults', async () => {
    const clock = new ManualClock('2025-03-01T00:00:00Z');
    const policy = new RetryPolicy({}, fixed(0.5));
    const start = clock.now().getTime();
    const upAt = start + 40_000;
    let attempt = 1;
    while (clock.now().getTime() < upAt) {
      const delay = policy.next(attempt, clock.now().getTime() - start);
      expect(delay).toBeDefined();
      await clock.sleep(delay ?? 0);
      attempt++;
    }
    expect(attempt).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it('keeps every wait under maxDelay unless honouring Retry-After, and the total within budget', () => {
    fc.assert(
      fc.property(
        fc.record({
          maxAttempts: fc.integer({ min: 1, max: 30 }),
          baseDelayMs: fc.integer({ min: 0, max: 5_000 }),
          maxDelayMs: fc.integer({ min: 0, max: 60_000 }),
          budgetMs: fc.integer({ min: 0, max: 300_000 }),
        }),
        fc.array(
          fc.record({
            random: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
            retryAfterMs: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
            requestMs: fc.integer({ min: 0, max: 10_000 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (options, steps) => {
          let i = 0;
          const policy = new RetryPolicy(options, () => steps[i % steps.length]?.random ?? 0);
          const clock = new ManualClock('2025-01-01T00:00:00Z');
          const start = clock.now().getTime();
          let attempt = 1;
          for (; ; attempt++, i++) {
            const step = steps[i % steps.length];
            clock.advance(step?.requestMs ?? 0);
            const elapsed = clock.now().getTime() - start;
            const delay = policy.next(attempt, elapsed, step?.retryAfterMs);
            if (delay === undefined) break;
            expect(delay).toBeGreaterThanOrEqual(0);
            expect(delay).toBeLessThanOrEqual(Math.max(options.maxDelayMs, step?.retryAfterMs ?? 0));
            if (step?.retryAfterMs !== undefined) expect(delay).toBeGreaterThanOrEqual(step.retryAfterMs);
            expect(elapsed + delay).toBeLessThanOrEqual(options.budgetMs);
            clock.advance(delay);
          }
          expect(attempt).toBeLessThanOrEqual(options.maxAttempts);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2015-10-21T07:27:30Z');

  it.each([
    ['0', 0],
    ['120', 120_000],
    [' 3 ', 3_000],
    ['1.5', 1_500],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 30_000], // IMF-fixdate
    ['Wednesday, 21-Oct-15 07:28:00 GMT', 30_000], // obsolete RFC 850
    ['Wed, 21 Oct 2015 07:00:00 GMT', 0], // in the past: retry now
    [undefined, undefined],
    ['', undefined],
    ['soon', undefined],
    ['-5', undefined],
    ['2015', 2_015_000], // a bare number is seconds, never a year
    ['2015-10-21', undefined], // not an HTTP-date
    ['Wed, 99 Foo 2015 GMT', undefined],
  ])('parses %o as %o ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import {
  budgetFromRemaining,
  COMMIT_MARGIN,
  deadlineBudget,
  unboundedBudget,
} from '../../lib/foundation/clock/deadlineBudget.ts';

const NOW = '2025-02-06T12:00:00.000Z';

describe('deadlineBudget', () => {
  it.each([
    [900_000, 60_000, '2025-02-06T12:15:00.000Z', '2025-02-06T12:14:00.000Z'],
    [60_000, 20_000, '2025-02-06T12:01:00.000Z', '2025-02-06T12:00:40.000Z'],
    [10_000, 20_000, '2025-02-06T12:00:10.000Z', '2025-02-06T11:59:50.000Z'],
  ])(
    'with %i ms left and a %i ms reserve, ends at %s and stops work at %s',
    (remaining, reserve, end, stop) => {
      const b = budgetFromRemaining(new ManualClock(NOW), remaining, reserve);
      expect(b.endsAt?.toISOString()).toBe(end);
      expect(b.stopAt?.toISOString()).toBe(stop);
    },
  );

  it('is spent once the clock reaches the end less the reserve, and its signal is aborted from then on', () => {
    const clock = new ManualClock(NOW);
    const b = deadlineBudget(clock, new Date(Date.parse(NOW) + 10_000), 4_000);
    expect(b.spent()).toBe(false);
    expect(b.signal()?.aborted).toBe(false);
    clock.advance(5_999);
    expect(b.spent()).toBe(false);
    clock.advance(1);
    expect(b.spent()).toBe(true);
    expect(b.signal()?.aborted).toBe(true);
  });

  it('without an end is never spent and has no signal', () => {
    const clock = new ManualClock(NOW);
    for (const b of [unboundedBudget(clock), budgetFromRemaining(clock, undefined, 60_000)]) {
      clock.advance(86_400_000);
      expect(b.spent()).toBe(false);
      expect(b.signal()).toBeUndefined();
      expect(b.stopAt).toBeUndefined();
    }
  });

  it('keeps COMMIT_MARGIN times its longest commit once that is more than the reserve, a running commit counting its time so far', () => {
    const clock = new ManualClock(NOW);
    const b = deadlineBudget(clock, new Date(Date.parse(NOW) + 10_000), 500);
    const quick = b.startCommit();
    clock.advance(200);
    quick();
    // 1.5 × 200 ms is less than the reserve: the reserve stands.
    expect(b.keepMs).toBe(500);
    const slow = b.startCommit();
    clock.advance(1_000);
    // Still running, 1 s in: it already counts.
    expect(b.keepMs).toBe(COMMIT_MARGIN * 1_000);
    clock.advance(1_000);
    slow();
    expect(b.keepMs).toBe(COMMIT_MARGIN * 2_000);
    expect(b.stopAt?.getTime()).toBe(Date.parse(NOW) + 10_000 - COMMIT_MARGIN * 2_000);
    // Spent once the clock reaches the new stop, long before the reserve alone would say so.
    clock.set(new Date(Date.parse(NOW) + 10_000 - COMMIT_MARGIN * 2_000 - 1));
    expect(b.spent()).toBe(false);
    expect(b.signal()?.aborted).toBe(false);
    clock.advance(1);
    expect(b.spent()).toBe(true);
    expect(b.signal()?.aborted).toBe(true);
  });
});

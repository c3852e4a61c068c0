import { describe, expect, it } from 'vitest';
import { acceleratedClock, fixedClock, realClock } from '../../lib/archive/emulator/emulatorClock.ts';

describe('fixedClock', () => {
  it('stays put until set or advanced', () => {
    const clock = fixedClock('2025-03-01T00:00:00Z');
    expect(clock.now().toISOString()).toBe('2025-03-01T00:00:00.000Z');
    clock.advance(7 * 86_400_000);
    expect(clock.now().toISOString()).toBe('2025-03-08T00:00:00.000Z');
    clock.set(new Date('2025-01-01T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('rejects an unparsable instant', () => {
    expect(() => fixedClock('yesterday')).toThrow(RangeError);
  });
});

describe('acceleratedClock', () => {
  it('runs emulated time rate times faster than the injected real time', () => {
    let real = 1_000;
    const clock = acceleratedClock({ start: '2025-03-01T00:00:00Z', rate: 3600, realNow: () => real });
    real += 1_000;
    expect(clock.now().toISOString()).toBe('2025-03-01T01:00:00.000Z');
  });

  it.each([0, -1, Number.NaN])('rejects rate %s', (rate) => {
    expect(() => acceleratedClock({ start: 0, rate })).toThrow(RangeError);
  });
});

describe('realClock', () => {
  it('tracks wall-clock time', () => {
    const before = Date.now();
    const t = realClock().now().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});

import { describe, expect, it } from 'vitest';
import { failedDayState, gapDayState, nextDayState } from '../../lib/archive/days/nextDayState.ts';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const day = (over: Partial<DayState> = {}): DayState => ({
  day: '2026-09-01',
  scannedAges: [],
  sealed: false,
  version: 1,
  ...over,
});
const scan = {
  complete: true,
  interrupted: false,
  totalElements: 10,
  distinctSeen: 10,
  shortfall: 0,
  quarantined: 0,
};
const NOW = new Date('2026-10-30T06:00:00.000Z');

describe('nextDayState', () => {
  it('records the age of a scan that ran to its end, and clears a failure', () => {
    const s = nextDayState(
      day({
        failure: {
          code: 'UPSTREAM_UNAVAILABLE',
          message: 'x',
          attempts: 2,
          firstFailedAt: 'a',
          lastFailedAt: 'b',
        },
      }),
      { ...scan, age: 7 },
      NOW,
      60,
    );
    expect(s.scannedAges).toEqual([7]);
    expect(s.failure).toBeUndefined();
    expect(s.sealed).toBe(false);
  });

  it('a cut-short scan records no age (the day stays due) and counts the deferral', () => {
    const s = nextDayState(day({ scannedAges: [1] }), { ...scan, interrupted: true, age: 3 }, NOW, 60);
    expect(s.scannedAges).toEqual([1]);
    expect(s.deferredRuns).toBe(1);
  });

  it('seals only on a complete scan at the last age, with the time it happened; never unseals', () => {
    expect(nextDayState(day(), { ...scan, age: 59, complete: false }, NOW, 60).sealed).toBe(false);
    const sealed = nextDayState(day(), { ...scan, age: 59 }, NOW, 60);
    expect(sealed).toMatchObject({ sealed: true, sealedAt: NOW.toISOString() });
    expect(nextDayState(sealed, { ...scan, age: 59, complete: false }, NOW, 60).sealed).toBe(true);
  });

  it('a failure counts its attempts in a row and keeps its code from the one table', () => {
    const once = failedDayState(day(), new ArchiverError('PAGE_LIMIT', 'too many pages'), NOW);
    const twice = failedDayState(once, new Error('boom'), NOW);
    expect(once.failure).toMatchObject({ code: 'PAGE_LIMIT', attempts: 1 });
    expect(twice.failure).toMatchObject({ code: 'INTERNAL', attempts: 2, firstFailedAt: NOW.toISOString() });
  });

  it('a gap records its reason', () => {
    expect(gapDayState(day(), 'left the window unsealed')).toMatchObject({
      gap: true,
      gapReason: 'left the window unsealed',
    });
  });
});

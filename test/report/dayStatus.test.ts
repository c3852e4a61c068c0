import { describe, expect, it } from 'vitest';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { type DayEvidence, dayStatus } from '../../lib/integrity/report/dayStatus.ts';

const TODAY = '2026-10-01';
const state = (over: Partial<DayState> = {}): DayState => ({
  day: '2026-09-20',
  scannedAges: [0, 1],
  sealed: false,
  version: 1,
  ...over,
});
const failure = (code: 'PARTITION_BROKEN' | 'UPSTREAM_UNAVAILABLE') => ({
  code,
  message: 'm',
  attempts: 1,
  firstFailedAt: TODAY,
  lastFailedAt: TODAY,
});
const evidence = (over: Partial<DayEvidence>): DayEvidence => ({
  day: '2026-09-20',
  today: TODAY,
  windowDays: 60,
  scans: [],
  brokenByVerify: false,
  pending: 0,
  ...over,
});

describe('dayStatus', () => {
  it.each([
    [
      'a failure PARTITION_BROKEN is broken',
      { state: state({ failure: failure('PARTITION_BROKEN') }) },
      'broken',
      'PARTITION_BROKEN',
    ],
    [
      'a file verify found missing is broken',
      { state: state({ sealed: true }), brokenByVerify: true },
      'broken',
      'missing file',
    ],
    [
      'another failure is failed, with its code',
      { state: state({ failure: failure('UPSTREAM_UNAVAILABLE'), sealed: true }) },
      'failed',
      'UPSTREAM_UNAVAILABLE',
    ],
    [
      'a recorded gap is a gap, with its reason',
      { state: state({ gap: true, gapReason: '400 at age 59' }) },
      'gap',
      '400 at age 59',
    ],
    ['sealed in the state is sealed', { state: state({ sealed: true, shortfall: 3 }) }, 'sealed', undefined],
    [
      'an unsealed day past the window is a gap',
      { day: '2026-07-01', state: state({ day: '2026-07-01' }) },
      'gap',
      'left the window unsealed',
    ],
    ['a shortfall in the window is pending', { state: state({ shortfall: 2 }) }, 'pending', undefined],
    [
      "verify's pending records in the window are pending",
      { state: state(), pending: 4 },
      'pending',
      undefined,
    ],
    ['otherwise, in the window', { state: state() }, 'window', undefined],
    [
      'without a state: a complete scan at a final age seals',
      { day: '2026-08-03', scans: [{ age: 59, complete: true }] },
      'sealed',
      undefined,
    ],
    [
      'without a state: an incomplete final scan does not',
      { day: '2026-08-03', scans: [{ age: 59, complete: false }] },
      'window',
      undefined,
    ],
    [
      'without a state: never sealed and past the window, a gap',
      { day: '2026-07-01', scans: [{ age: 3, complete: true }] },
      'gap',
      'left the window unsealed',
    ],
  ] as const)('%s', (_name, over, status, detail) => {
    const got = dayStatus(evidence(over as Partial<DayEvidence>));
    expect(got.status).toBe(status);
    expect(got.detail).toBe(detail);
  });
});

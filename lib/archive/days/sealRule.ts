import type { DayState } from '../state/dayState.ts';

/** The oldest age the server still answers for: the last chance to sweep a day. */
export function lastSweepAge(windowDays: number): number {
  return windowDays - 1;
}

/**
 * The sealing rule, in one place: a day is sealed by a complete scan at the last age the server still
 * answers for (the final sweep), and once sealed (or recorded as a gap) it is never scanned again. Sealing
 * only ever moves forward: merging two states of a day keeps it sealed if either is. The planner
 * (`planDays`), the day-state update (`nextDayState`) and the merge (`putDayMerging`) all ask this.
 */
export const sealRule = {
  /** Whether this scan seals its day. */
  seals(scan: { complete: boolean; age: number }, windowDays: number): boolean {
    return scan.complete && scan.age >= lastSweepAge(windowDays);
  },
  /** Whether a day is done for good: sealed, or left the window as a gap. The planner never plans it. */
  settled(state: Pick<DayState, 'sealed' | 'gap'> | undefined): boolean {
    return Boolean(state?.sealed || state?.gap);
  },
  /** Two states of one day, merged: sealed when either is (a seal is never undone). */
  merged(a: Pick<DayState, 'sealed'> | undefined, b: Pick<DayState, 'sealed'> | undefined): boolean {
    return Boolean(a?.sealed || b?.sealed);
  },
};

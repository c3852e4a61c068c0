import { addDays, type Day, dayRange, daysBetween } from '../clock/day.ts';
import type { DayState } from '../state/stateStore.ts';
import type { DayResult } from './runTypes.ts';

export interface PlanInput {
  today: Day;
  windowDays: number;
  rescanAges: number[];
  finalSweepAge: number;
  /** Known day states by day. */
  days: ReadonlyMap<Day, DayState>;
  /** Oldest window day of the first run; days before it were never ours to keep. */
  firstWindowStart: Day;
}

export interface PlannedDay {
  day: Day;
  age: number;
  reason: DayResult['reason'];
}

export interface Plan {
  /** Oldest first: the days closest to leaving the window go first. */
  due: PlannedDay[];
  /** Days that left the window unsealed and are not yet marked as gaps. */
  newGaps: Day[];
  windowStart: Day;
}

/** Oldest queryable day: ages 0 .. windowDays-1 are in the window. */
export function windowStartOf(today: Day, windowDays: number): Day {
  return addDays(today, -(windowDays - 1));
}

/**
 * Decides which days a run scans. Never-scanned days are backfilled; a scanned day is due again
 * when it has passed a rescan age since its last scan; from `finalSweepAge` on, an unsealed day
 * gets its final sweep each run until it is sealed. Because the rule compares the last scan's age
 * with the checkpoints passed, a missed run is caught up by the next one.
 */
export function planDays(input: PlanInput): Plan {
  const windowStart = windowStartOf(input.today, input.windowDays);
  const due: PlannedDay[] = [];
  for (const day of dayRange(windowStart, input.today)) {
    const age = daysBetween(day, input.today);
    const state = input.days.get(day);
    if (state?.sealed) continue;
    const lastAge = state && state.scannedAges.length > 0 ? Math.max(...state.scannedAges) : undefined;
    if (lastAge === undefined) {
      due.push({ day, age, reason: age >= input.finalSweepAge ? 'final' : 'backfill' });
    } else if (age >= input.finalSweepAge) {
      due.push({ day, age, reason: 'final' });
    } else {
      const checkpoint = Math.max(0, ...input.rescanAges.filter((a) => a <= age));
      if (checkpoint > 0 && lastAge < checkpoint) due.push({ day, age, reason: 'rescan' });
    }
  }
  const newGaps: Day[] = [];
  const lastGone = addDays(windowStart, -1);
  if (input.firstWindowStart <= lastGone) {
    for (const day of dayRange(input.firstWindowStart, lastGone)) {
      const state = input.days.get(day);
      if (!state?.sealed && !state?.gap) newGaps.push(day);
    }
  }
  return { due, newGaps, windowStart };
}

/** Unsealed window days at or past the final-sweep age: they leave the window soon. */
export function daysAtRisk(
  today: Day,
  windowDays: number,
  finalSweepAge: number,
  days: ReadonlyMap<Day, DayState>,
): Day[] {
  return dayRange(windowStartOf(today, windowDays), today).filter(
    (d) => daysBetween(d, today) >= finalSweepAge && !days.get(d)?.sealed,
  );
}

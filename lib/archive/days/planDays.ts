import { addDays, type Day, dayRange, daysBetween } from '../../foundation/index.ts';
import type { DayState } from '../state/dayState.ts';
import { lastSweepAge, sealRule } from './sealRule.ts';

export interface PlanInput {
  today: Day;
  /** Days the server keeps: the configured window, or less once the server showed it keeps less. */
  windowDays: number;
  rescanAges: number[];
  /** Known day states by day. */
  days: ReadonlyMap<Day, DayState>;
  /** Oldest window day of the first run; days before it were never ours to keep. */
  firstWindowStart: Day;
}

/** Why a day is walked on this run. */
export type PlanReason = 'backfill' | 'rescan' | 'final' | 'requested';

export interface PlannedDay {
  day: Day;
  age: number;
  reason: PlanReason;
}

export interface Plan {
  /** Oldest first (the days closest to leaving the window), except that days the deadline cut short go last. */
  due: PlannedDay[];
  /** Days that left the window unsealed and are not yet marked as gaps. */
  newGaps: Day[];
  windowStart: Day;
}

/** Oldest queryable day: ages 0 .. windowDays-1 are in the window. */
export function windowStartOf(today: Day, windowDays: number): Day {
  return addDays(today, -(windowDays - 1));
}

/** The final sweeps run at the last two ages the server can still be queried for. */
export function isFinalAge(age: number, windowDays: number): boolean {
  return age >= lastSweepAge(windowDays) - 1;
}

/**
 * Decides which days a run scans. Never-scanned days are backfilled; a scanned day is due again when it has
 * passed a rescan age since its last scan; on each of the last two queryable days (ages window-2 and
 * window-1) an unsealed day gets a final sweep, repeated until it completes. Only a complete sweep at the
 * last age seals the day (`nextDayState`). Because the rule compares the last scan's age with the
 * checkpoints passed, a missed run is caught up by the next one; a failed or cut-short scan records no age,
 * so the day is simply due again.
 */
export function planDays(input: PlanInput): Plan {
  const windowStart = windowStartOf(input.today, input.windowDays);
  const due: PlannedDay[] = [];
  for (const day of dayRange(windowStart, input.today)) {
    const age = daysBetween(day, input.today);
    const state = input.days.get(day);
    if (sealRule.settled(state)) continue;
    const lastAge = state && state.scannedAges.length > 0 ? Math.max(...state.scannedAges) : undefined;
    const final = isFinalAge(age, input.windowDays);
    if (lastAge === undefined) {
      due.push({ day, age, reason: final ? 'final' : 'backfill' });
    } else if (final) {
      // Each final age once (complete), and the last age until the day is sealed.
      if (lastAge < age || age === lastSweepAge(input.windowDays)) due.push({ day, age, reason: 'final' });
    } else {
      const checkpoint = Math.max(0, ...input.rescanAges.filter((a) => a <= age));
      if (checkpoint > 0 && lastAge < checkpoint) due.push({ day, age, reason: 'rescan' });
    }
  }
  const cutShort = (p: PlannedDay) => p.reason !== 'final' && (input.days.get(p.day)?.deferredRuns ?? 0) > 0;
  const ordered = [...due.filter((p) => !cutShort(p)), ...due.filter(cutShort)];
  const newGaps: Day[] = [];
  const lastGone = addDays(windowStart, -1);
  if (input.firstWindowStart <= lastGone) {
    for (const day of dayRange(input.firstWindowStart, lastGone)) {
      const state = input.days.get(day);
      if (!sealRule.settled(state)) newGaps.push(day);
    }
  }
  return { due: ordered, newGaps, windowStart };
}

/** Unsealed window days in their final sweeps: they leave the window within two days. */
export function daysAtRisk(today: Day, windowDays: number, days: ReadonlyMap<Day, DayState>): Day[] {
  return dayRange(windowStartOf(today, windowDays), today).filter(
    (d) => isFinalAge(daysBetween(d, today), windowDays) && !days.get(d)?.sealed,
  );
}

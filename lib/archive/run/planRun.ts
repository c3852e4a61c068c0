import {
  type ArchiverErrorCode,
  addDays,
  type Day,
  dayRange,
  daysBetween,
  toDay,
} from '../../foundation/index.ts';
import { blankDay, gapDayState } from '../days/nextDayState.ts';
import { type PlannedDay, planDays, windowStartOf } from '../days/planDays.ts';
import { putDayMerging } from '../days/putDayMerging.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { DayState } from '../state/dayState.ts';
import type { ArchiveDeps, ArchiveOptions } from './runTypes.ts';

/** The due days (planned, or those asked for), with the days that left the window unsealed recorded as gaps. */
export async function planRun(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  today: Day,
  windowDays: number,
  meta: ArchiveMeta,
  /** `true`: every day (a full reconciliation); a day: the days from it (a weekly one); `false`: since the last run. */
  reconcile: boolean | Day = true,
): Promise<{ days: Map<Day, DayState>; due: PlannedDay[]; gaps: Day[] }> {
  const read =
    typeof reconcile === 'string'
      ? { from: reconcile, days: await deps.state.getDays(dayRange(reconcile, today)) }
      : reconcile
        ? { from: meta.firstWindowStart, days: await deps.state.listDays() }
        : await daysSinceLastRun(deps, meta, today, windowDays);
  const days = new Map(read.days.map((d) => [d.day, d] as const));
  const plan = planDays({
    today,
    windowDays,
    rescanAges: options.rescanAges,
    days,
    // Days before those read were settled by earlier runs: only the ones read can turn into gaps.
    firstWindowStart: read.from,
  });
  for (const day of plan.newGaps) {
    const s = await putDayMerging(
      deps,
      gapDayState(days.get(day) ?? blankDay(day), 'left the window unsealed'),
    );
    days.set(day, s);
    deps.logger.error('day left the window before it was sealed: late records may be lost', {
      day,
      code: 'GAP' satisfies ArchiverErrorCode,
    });
  }
  const due: PlannedDay[] = options.onlyDays
    ? requestedDays(options.onlyDays).map((day) => ({
        day,
        age: daysBetween(day, today),
        reason: 'requested' as const,
      }))
    : plan.due;
  return { days, due, gaps: [...plan.newGaps] };
}

/** The days a run was asked for, each once, oldest first: the order it walks them in. */
export function requestedDays(onlyDays: readonly Day[]): Day[] {
  return [...new Set(onlyDays)].sort();
}

/**
 * The day states a steady run needs, read one by one (a bounded number of reads, however old the archive):
 * the window, and the days that left it since the last run (they may turn into gaps). Older days were
 * settled (sealed, or recorded as gaps) by an earlier run. Without a last run, every day.
 */
async function daysSinceLastRun(
  deps: ArchiveDeps,
  meta: ArchiveMeta,
  today: Day,
  windowDays: number,
): Promise<{ from: Day; days: DayState[] }> {
  if (meta.lastRunAt === undefined) return { from: meta.firstWindowStart, days: await deps.state.listDays() };
  const lastWindow = windowStartOf(toDay(new Date(meta.lastRunAt)), windowDays);
  const from = [meta.firstWindowStart, addDays(lastWindow, -2)].sort().at(-1) as Day;
  return { from, days: await deps.state.getDays(dayRange(from, today)) };
}

import { ArchiverError, isDay, toDay } from '../../foundation/index.ts';
import type { HistoryRecord } from '../records/schemas.ts';
import { windowStart } from './routes.ts';
import type { SessionArchive } from './sessionArchive.ts';

/**
 * The oracle for tests: the rows `history/<day>/<day>` would expose at `at`, in a stable order
 * (ascending start_time). Days outside the window or in the future expose nothing.
 */
export function truthFor(
  archive: SessionArchive,
  day: string,
  at: Date,
  windowDays: number,
): HistoryRecord[] {
  if (!isDay(day)) throw new ArchiverError('BAD_REQUEST', `truth(): not a day: '${day}'`);
  if (day < windowStart(at, windowDays) || day > toDay(at)) return [];
  return [...archive.visible(day, day, at.getTime())]
    .sort((a, b) => a.startMs - b.startMs)
    .map((s) => structuredClone(s.history));
}

import type { Day } from './day.ts';

/**
 * How long after a day's UTC midnight the server's calendar day may still take new sessions: its end in the
 * westernmost zone a server may keep (UTC−12), 36 hours after the UTC day began. The API does not say which
 * zone its days are in (../shared/notes/upstream-facts.md), so a day is open until the latest it could end.
 */
export const LATEST_DAY_END_MS = 36 * 3_600_000;

/** Whether the server may still be adding sessions to `day` at `now` (its calendar day may not have ended). */
export function mayStillBeOpen(day: Day, now: Date): boolean {
  return now.getTime() < Date.parse(`${day}T00:00:00Z`) + LATEST_DAY_END_MS;
}

import { type DayState, sealRule } from '../../archive/index.ts';
import { type Day, daysBetween } from '../../foundation/index.ts';
import type { DayStatus } from './reportModel.ts';

/** What is known of one day, from the state (when readable), the digests and verify. */
export interface DayEvidence {
  day: Day;
  today: Day;
  windowDays: number;
  state?: DayState | undefined;
  /** Scans the digests record for the day, with the age each was made at. */
  scans: { age: number; complete: boolean }[];
  /** verify reported a listed file of the day missing. */
  brokenByVerify: boolean;
  /** Records the API has that are pending (verify with an API), for the day. */
  pending: number;
}

/**
 * The colour of a calendar cell, as a pure rule. In order: a broken partition, a failed day (its code),
 * a gap (recorded, or a day that left the window unsealed), sealed (the state's flag, or without a state
 * the sealing rule on the digests' scans), pending late records (a shortfall or verify's pending), and
 * otherwise still in the window.
 */
export function dayStatus(e: DayEvidence): { status: DayStatus; detail?: string } {
  const failure = e.state?.failure;
  if (e.brokenByVerify || failure?.code === 'PARTITION_BROKEN')
    return { status: 'broken', detail: failure?.code ?? 'missing file' };
  if (failure) return { status: 'failed', detail: failure.code };
  if (e.state?.gap) return { status: 'gap', detail: e.state.gapReason ?? 'left the window unsealed' };
  const sealed = e.state
    ? e.state.sealed
    : e.scans.some((s) => sealRule.seals({ complete: s.complete, age: s.age }, e.windowDays));
  if (sealed) return { status: 'sealed' };
  if (daysBetween(e.day, e.today) >= e.windowDays)
    return { status: 'gap', detail: 'left the window unsealed' };
  if ((e.state?.shortfall ?? 0) > 0 || e.pending > 0) return { status: 'pending' };
  return { status: 'window' };
}

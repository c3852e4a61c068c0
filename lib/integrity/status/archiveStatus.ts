import {
  type ActiveStatus,
  type ArchiveMeta,
  activeStatus,
  type DayFailure,
  type DayState,
  type DayStateStore,
  isFinalAge,
  type LiveStore,
  type MetaStore,
  windowStartOf,
} from '../../archive/index.ts';
import { type Day, dayRange, daysBetween } from '../../foundation/index.ts';

/** One window day as `status` shows it. */
export interface StatusDay {
  day: Day;
  age: number;
  /** Ages of the complete scans, comma-separated, or `-` when never scanned. */
  scanned: string;
  sealed: boolean;
  records: number;
  total: number;
  shortfall: number;
  /** At a final age and not sealed: the next missed run makes it a gap. */
  atRisk: boolean;
}

/** What `status --json` prints, and what the report's figures come from: one source for both. */
export interface ArchiveStatus {
  today: Day;
  meta: ArchiveMeta | undefined;
  days: StatusDay[];
  gaps: Day[];
  failed: ({ day: Day } & DayFailure)[];
  live: ActiveStatus;
}

/** What the status is computed from: the state's days, meta and live observations. */
export interface StatusInputs {
  days: DayState[];
  meta: ArchiveMeta | undefined;
  active: Awaited<ReturnType<LiveStore['getActiveState']>>;
}

/** The state concerns `status` reads (read-only): days, META and the live observations. */
export type StatusReads = Pick<DayStateStore, 'listDays'> &
  Pick<MetaStore, 'getMeta'> &
  Pick<LiveStore, 'getActiveState'>;

/** The reads `status` needs from the state (read-only). */
export async function readStatusInputs(state: StatusReads): Promise<StatusInputs> {
  const [days, meta, active] = await Promise.all([state.listDays(), state.getMeta(), state.getActiveState()]);
  return { days, meta, active };
}

/**
 * The status of the archive from its state, as a pure function: one row per window day (scanned ages,
 * sealed, records, shortfall, at risk), the gaps, the failing days and the live sessions.
 */
export function archiveStatus(
  input: StatusInputs,
  options: { today: Day; now: Date; windowDays: number },
): ArchiveStatus {
  const { today, windowDays } = options;
  const byDay = new Map(input.days.map((d) => [d.day, d] as const));
  const days = dayRange(windowStartOf(today, windowDays), today).map((day): StatusDay => {
    const s = byDay.get(day);
    const age = daysBetween(day, today);
    return {
      day,
      age,
      scanned: s?.scannedAges.length ? s.scannedAges.join(',') : '-',
      sealed: s?.sealed ?? false,
      records: s?.distinctSeen ?? 0,
      total: s?.totalElements ?? 0,
      shortfall: s?.shortfall ?? 0,
      atRisk: isFinalAge(age, windowDays) && !s?.sealed,
    };
  });
  const gaps = input.days
    .filter((d) => d.gap)
    .map((d) => d.day)
    .sort();
  const failed = input.days
    .filter((d) => d.failure)
    .map((d) => ({ day: d.day, ...(d.failure as DayFailure) }));
  return {
    today,
    meta: input.meta,
    days,
    gaps,
    failed,
    live: activeStatus(input.active, options.now, windowDays),
  };
}

import type { LongSession } from '../../archive/index.ts';
import type { Day } from '../../foundation/index.ts';
import type { ArchiveStatus } from '../status/archiveStatus.ts';
import type { VerifyJobResult } from '../verify/verifyJobTypes.ts';
import type { VerifyResult } from '../verify/verifyTypes.ts';

/** The colour classes of the coverage calendar, one per day. */
export const DAY_STATUSES = ['sealed', 'window', 'pending', 'gap', 'failed', 'broken'] as const;
export type DayStatus = (typeof DAY_STATUSES)[number];

/** What the legend says of each class. */
export const DAY_STATUS_LABEL: Record<DayStatus, string> = {
  sealed: 'sealed',
  window: 'still in the window',
  pending: 'pending late records',
  gap: 'gap',
  failed: 'failed',
  broken: 'broken partition',
};

/** One calendar cell: a day of the archive and what is known of it. */
export interface CalendarDay {
  day: Day;
  status: DayStatus;
  /** Ages of the complete scans (from the state, else from the digests). */
  scannedAges: number[];
  /** Distinct records of the last scan (state), or rows of the day's files (digests). */
  records: number;
  /** Data files and their rows under `history/dt=<day>/`, as the digests list them. */
  files: number;
  rows: number;
  /** Scans the digests record for the day. */
  scans: number;
  /** The failure code of a failed or broken day; the reason of a gap. */
  detail?: string;
}

/** Sessions of one day and mode, from the `mode` column of `history/`. */
export interface ModeCount {
  day: Day;
  mode: string;
  sessions: number;
}

/** Sessions open at one snapshot of `active/`. */
export interface LivePoint {
  at: string;
  open: number;
}

/** Findings of the detections dataset, when it exists. */
export interface FindingsSummary {
  total: number;
  byRule: { rule: string; severity: string; count: number }[];
  latest: { rule: string; severity: string; dt: string; entity: string; lastSeen: string }[];
}

/** Everything the page shows, computed before rendering (the renderer only formats). */
export interface ReportModel {
  generatedAt: string;
  archive: string;
  today: Day;
  windowDays: number;
  /** `status --json`, when the state could be read; the calendar falls back on the digests without it. */
  status?: ArchiveStatus;
  /** `verify --json`: a fresh archive-only check (`--verify`) or the weekly one (Lambda). */
  verify?: VerifyResult;
  /** Where `verify` comes from: a check run for this report, or the last one stored in the archive. */
  verifySource?: 'fresh' | 'stored';
  /** The last full verify job's merged result (`reports/full-verify.json`), when a job has finished. */
  fullVerifyJob?: VerifyJobResult;
  calendar: CalendarDay[];
  activity: { byMode: ModeCount[]; live: LivePoint[]; longSessions: LongSession[] };
  health: {
    lastRunAt: string | null;
    lastDigestAt: string | null;
    quarantined: number;
    /** Files staged but not yet published under `history/` or `active/`. */
    unpublished: number;
    /** Objects under the data prefixes no digest lists (verify's `unlisted`). */
    foreign: number | null;
    learnedWindowDays: number | null;
  };
  integrity: {
    head: { seq: number; sha256: string; at: string | null } | null;
    publicKeyFingerprint: string | null;
  };
  findings?: FindingsSummary;
}

import * as z from 'zod';
import { type ArchiverErrorCode, ERROR_CODES } from '../../foundation/index.ts';
import { itemVersion, storedDay, storedObject } from './storedItem.ts';

/**
 * Where a walk stands when its deadline cuts it: enough for the next run to go on with the same pass,
 * under the same completeness rules. Pages before `nextPage` of the current pass were absorbed.
 */
export const walkProgressSchema = z.object({
  /** Passes started, the current one included. */
  passes: z.number().int().positive(),
  /** First page of the current pass not absorbed yet (0: the pass has not begun). */
  nextPage: z.number().int().nonnegative(),
  /** The page size the server echoed for the current pass. */
  size: z.number().int().nonnegative(),
  /** The pages the server planned for the current pass. */
  planned: z.number().int().nonnegative(),
  /** Every `totalElements` seen (see `walkDay`). */
  totals: z.array(z.number().int().nonnegative()),
  /** The rows short pages proved. */
  observed: z.number().int().nonnegative(),
  stalled: z.number().int().nonnegative(),
  /** Passes in a row that added nothing (`BARREN_PASSES`); absent: none (a walk saved before it was kept). */
  barren: z.number().int().nonnegative().exactOptional(),
  /** Rows the walk held when the current pass began (what the pass has added is measured from it). */
  passStart: z.number().int().nonnegative(),
  /** Pages fetched so far, over every run. */
  pages: z.number().int().nonnegative(),
  /** Parts of the walk's ids saved after part 0 (see `WalkIdParts`); absent: none. */
  idParts: z.number().int().nonnegative().exactOptional(),
  /**
   * The files the walk committed whose ids those parts hold (the most recent `MAX_WALK_FILES`): the next
   * run need not read them back to know what is archived. Absent: none known (every file is read).
   */
  files: z.array(z.string().min(1)).exactOptional(),
});

export type WalkProgress = z.infer<typeof walkProgressSchema>;

/** A failed day: recorded, logged and counted, and the run goes on with the other days. */
export const dayFailureSchema = storedObject({
  /** A member of the one code table; a code an older version stored and this one lacks reads as INTERNAL. */
  code: z
    .string()
    .transform((c): ArchiverErrorCode => (c in ERROR_CODES ? (c as ArchiverErrorCode) : 'INTERNAL')),
  message: z.string(),
  /** Failed attempts since the last success. */
  attempts: z.number().int().nonnegative(),
  firstFailedAt: z.string(),
  lastFailedAt: z.string(),
});

export type DayFailure = z.infer<typeof dayFailureSchema>;

/** What the archive knows of one history query day (`<d>/<d>`). */
export const dayStateSchema = storedObject({
  day: storedDay,
  /** Ages (days between `day` and the run's UTC today) at which a complete scan was done. */
  scannedAges: z.array(z.number().int()),
  firstScannedAt: z.string().exactOptional(),
  lastScannedAt: z.string().exactOptional(),
  /** `totalElements` the API reported on the last scan. */
  totalElements: z.number().int().exactOptional(),
  /** Distinct records the last scan collected. */
  distinctSeen: z.number().int().exactOptional(),
  /** `totalElements - distinctSeen` when the last scan could not reach the total, else 0. */
  shortfall: z.number().int().exactOptional(),
  /** Records quarantined (failed validation) on the last scan. */
  quarantined: z.number().int().exactOptional(),
  sealed: z.boolean(),
  sealedAt: z.string().exactOptional(),
  /** Set when the day left the 60-day window before it was sealed: its late records may be lost. */
  gap: z.boolean().exactOptional(),
  /** Whether the last scan proved the day complete (a short last page and, when the totals lied, a pass adding nothing). */
  complete: z.boolean().exactOptional(),
  /** Why the day is a gap, when it is one: what was observed (e.g. the server answered 400 at age 59). */
  gapReason: z.string().exactOptional(),
  /** The last failed walk or commit of this day; cleared by the next success. */
  failure: dayFailureSchema.exactOptional(),
  /**
   * Where the last walk stands when its deadline cut it (its rows so far were committed, and their ids
   * saved beside the staging files): the next run goes on from there. Cleared by a walk that ends.
   */
  walk: walkProgressSchema.exactOptional(),
  /** Consecutive runs whose deadline cut this day's walk short (its records so far were committed). */
  deferredRuns: z.number().int().nonnegative().exactOptional(),
  version: itemVersion,
});

export type DayState = z.infer<typeof dayStateSchema>;

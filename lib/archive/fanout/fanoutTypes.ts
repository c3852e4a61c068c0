import * as z from 'zod';
import { type Day, isDay } from '../../foundation/index.ts';
import { archiveKeys } from '../commit/archiveKeys.ts';

/**
 * What crosses the Step Functions boundary between the fan-out's steps (plan, walk, finish): parsed with
 * zod on the way in, since the state machine (and a person starting it by hand) is outside the code.
 */
const day = z.string().refine(isDay, 'not a calendar day YYYY-MM-DD') as unknown as z.ZodType<Day>;
const reason = z.enum(['backfill', 'rescan', 'final', 'requested']);

/** The lease of the orchestration: every worker commits under it (several workers, one orchestration). */
export const fanoutLeaseSchema = z.strictObject({
  owner: z.string().min(1),
  fence: z.number().int().nonnegative(),
  expiresAt: z.number().int().nonnegative(),
});

/** What every item names: its id (unique in the orchestration) and the planned day it works on. */
const itemBase = { id: z.string().min(1), day, age: z.number().int().nonnegative(), reason };

/** A whole day, walked (and resumed) exactly as one run walks it: `archiveDay`. */
const dayItemSchema = z.strictObject({ kind: z.literal('day'), ...itemBase });

/**
 * Pages `[from, to)` of pass `pass` of a giant day, at the page size the plan's first request echoed; the
 * last range (`last`) goes on past `to` until a page shorter than `size`, as a pass does.
 */
const rangeItemSchema = z.strictObject({
  kind: z.literal('range'),
  ...itemBase,
  pass: z.number().int().positive(),
  from: z.number().int().nonnegative(),
  to: z.number().int().positive(),
  last: z.boolean(),
  size: z.number().int().positive(),
  planned: z.number().int().positive(),
});

export const fanoutItemSchema = z.discriminatedUnion('kind', [dayItemSchema, rangeItemSchema]);
export type FanoutItem = z.infer<typeof fanoutItemSchema>;
export type RangeItem = z.infer<typeof rangeItemSchema>;

/** What the plan step hands to the map and to the finish step (the items themselves are in the store). */
export const fanoutPlanOutputSchema = z.strictObject({
  orchestrationId: z.string().min(1),
  lease: fanoutLeaseSchema,
  startedAt: z.string(),
  windowDays: z.number().int().positive(),
  /** Object key of the items (a JSON array): the Distributed Map's ItemReader reads it. */
  itemsKey: z.string(),
  itemCount: z.number().int().nonnegative(),
  gaps: z.array(day),
  /** Whether the plan reconciled the state with the whole archive (absent: treated as reconciled). */
  reconcile: z.boolean().optional(),
  /** A weekly reconciliation from the chain since the last one: the first day it read (its digest follows the head). */
  reconcileFrom: z.string().optional(),
  /** What publishing earlier runs' committed files found (`publishStaged`): the finish step's summary says it. */
  pending: z
    .strictObject({
      broken: z.array(z.string()),
      changed: z.array(z.string()),
      oldestUnpublishedHours: z.number().nonnegative(),
    })
    .optional(),
});
export type FanoutPlanOutput = z.infer<typeof fanoutPlanOutputSchema>;

/** One map item's invocation: the item, with the orchestration it works under. */
export const fanoutWalkInputSchema = z.strictObject({
  orchestrationId: z.string().min(1),
  lease: fanoutLeaseSchema,
  windowDays: z.number().int().positive(),
  item: fanoutItemSchema,
});
export type FanoutWalkInput = z.infer<typeof fanoutWalkInputSchema>;

/** What a range worker found, stored beside the walk's ids for the finish step. */
export const rangeResultSchema = z.strictObject({
  id: z.string(),
  day,
  pass: z.number().int().positive(),
  from: z.number().int().nonnegative(),
  /** Pages fetched, and the first page shorter than `size` among them (the pass's end), if any. */
  pages: z.number().int().nonnegative(),
  short: z.strictObject({ page: z.number().int().nonnegative(), length: z.number().int() }).optional(),
  totals: z.array(z.number().int().nonnegative()),
  /** Object key of the gzipped ids this range took (hex lines). */
  idsKey: z.string(),
  distinct: z.number().int().nonnegative(),
  quarantined: z.number().int().nonnegative(),
  newRecords: z.number().int().nonnegative(),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
export type RangeResult = z.infer<typeof rangeResultSchema>;

/** Where the fan-out keeps its working objects: under `_staging/` (never public, never swept by stamp). */
export const fanoutKeys = {
  items: (orchestrationId: string) => `${archiveKeys.stagingAreas.fanout}${safe(orchestrationId)}/items.json`,
  itemOutcome: (orchestrationId: string, itemId: string) =>
    `${archiveKeys.stagingAreas.fanout}${safe(orchestrationId)}/items/${itemId}.json`,
  finished: (orchestrationId: string) =>
    `${archiveKeys.stagingAreas.fanout}${safe(orchestrationId)}/finished.json`,
  rangeIds: (orchestrationId: string, itemId: string) =>
    `${archiveKeys.stagingAreas.fanout}${safe(orchestrationId)}/ids/${itemId}.ids.gz`,
};

/** An execution name made safe for a key segment. */
function safe(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The item id of a range: day and first page, so a retried range overwrites its own outcome. */
export const rangeItemId = (d: Day, pass: number, from: number): string => `${d}-p${pass}-r${from}`;

/** What the walk step reports for an item (also stored, since a Distributed Map's results go to S3). */
export const itemOutcomeSchema = z.strictObject({
  id: z.string(),
  day,
  ok: z.boolean(),
  code: z.string().optional(),
  message: z.string().optional(),
  range: rangeResultSchema.optional(),
  /** For a whole-day item: what the run's day loop reported for it (written by this code, read back as is). */
  due: z
    .strictObject({
      results: z.array(z.any()),
      failedDays: z.array(z.any()),
      deferredDays: z.array(day),
      gaps: z.array(day),
    })
    .optional(),
});
export type ItemOutcome = z.infer<typeof itemOutcomeSchema>;

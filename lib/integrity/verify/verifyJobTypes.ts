import * as z from 'zod';
import { archiveKeys, digestFileSchema } from '../../archive/index.ts';

/** A job's name: the key segment its plan and results live under (the execution's input, or its name). */
export const verifyJobIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,80}$/, 'letters, digits, _ . - (1 to 80)');

/** One item of a job: the chain itself, or the files of one folder (a partition) of a listed prefix. */
export const verifyJobItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({ id: z.literal('chain'), kind: z.literal('chain') }),
  z.strictObject({ id: z.string().regex(/^p\d{6,}$/), kind: z.literal('files'), folder: z.string().min(1) }),
]);
export type VerifyJobItem = z.infer<typeof verifyJobItemSchema>;

const head = z.object({ seq: z.number().int().positive(), key: z.string(), sha256: z.string() });

/**
 * A job's plan, written once (its presence means the items and their listings are all written): the chain
 * head whose listed files it checks.
 */
export const verifyJobPlanSchema = z.object({
  jobId: verifyJobIdSchema,
  plannedAt: z.string(),
  head: head.nullable(),
  items: z.number().int().positive(),
  itemsKey: z.string(),
});
export type VerifyJobPlan = z.infer<typeof verifyJobPlanSchema>;

/** What the digests list in one folder: the files an item checks against. */
export const verifyJobListingSchema = z.array(z.object({ file: digestFileSchema, digest: z.string() }));

const count = z.number().int().nonnegative();
const failure = z.object({
  kind: z.string(),
  object: z.string().exactOptional(),
  day: z.string().exactOptional(),
  message: z.string(),
});

/** One item's result, stored under the job: a re-run of the job reuses it instead of checking again. */
export const verifyJobItemResultSchema = z.object({
  id: z.string(),
  checkedAt: z.string(),
  files: count,
  rows: count,
  records: count,
  failures: z.array(failure),
  /** The chain item: digests read. */
  digests: count.exactOptional(),
});
export type VerifyJobItemResult = z.infer<typeof verifyJobItemResultSchema>;

/** The merged result of a job: every failure of every item, the chain's included. */
export const verifyJobResultSchema = z.object({
  jobId: verifyJobIdSchema,
  ok: z.boolean(),
  plannedAt: z.string(),
  checkedAt: z.string(),
  head: head.nullable(),
  items: count,
  /** Objects no digest up to the planned head lists, listed by a digest written since: a later check's. */
  listedSince: count,
  /**
   * Objects no digest lists, written after the newest digest when the job merged (a snapshot between two
   * runs): not yet due; the next check judges them against the digests written since.
   */
  awaitingDigest: z.array(z.string()).default([]),
  digests: count,
  files: count,
  rows: count,
  records: count,
  failures: z.array(failure),
});
export type VerifyJobResult = z.infer<typeof verifyJobResultSchema>;

/** Where a job keeps its plan and results (`verify-jobs/<job>/…`). */
export const verifyJobKeys = {
  prefix: archiveKeys.verifyJobsPrefix,
  plan: (jobId: string) => `${archiveKeys.verifyJobsPrefix}${jobId}/plan.json`,
  items: (jobId: string) => `${archiveKeys.verifyJobsPrefix}${jobId}/items.json`,
  listing: (jobId: string, itemId: string) => `${archiveKeys.verifyJobsPrefix}${jobId}/listed/${itemId}.json`,
  itemResult: (jobId: string, itemId: string) =>
    `${archiveKeys.verifyJobsPrefix}${jobId}/results/${itemId}.json`,
  result: (jobId: string) => `${archiveKeys.verifyJobsPrefix}${jobId}/result.json`,
};

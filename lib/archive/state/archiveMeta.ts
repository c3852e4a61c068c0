import * as z from 'zod';
import { verifyProgressSchema } from '../../integrity/verify/verifyProgress.ts';
import { chainHeadSchema, pendingDigestFileSchema } from '../digest/digestState.ts';
import { itemVersion, storedDay, storedObject } from './storedItem.ts';

/** The archive's META: its first window, the last runs, the learned window, the chain's head. */
export const archiveMetaSchema = storedObject({
  firstRunAt: z.string(),
  /** Oldest day of the window at the first run: days before it were never the archive's to keep. */
  firstWindowStart: storedDay,
  lastRunAt: z.string().exactOptional(),
  lastSuccessAt: z.string().exactOptional(),
  /**
   * Days the server really keeps, learned when it answered 400 for a day inside the configured window
   * (a 59-day server, or a server calendar ahead of UTC). The planner never trusts more than this.
   */
  learnedWindowDays: z.number().int().positive().exactOptional(),
  /**
   * The digest chain's head as this archiver last wrote it. Kept outside the bucket, so someone who can
   * write the bucket cannot quietly rewind the chain: `verify` reports digests missing up to it as `truncated`.
   */
  chainHead: chainHeadSchema.exactOptional(),
  /**
   * Files committed (or about to be: noted before their manifest write) that no digest lists yet: what
   * the next digest lists, and what a run publishes first (`lib/archive/digest/pendingDigest.ts`). Lets a run
   * work from what it knows instead of listing the archive.
   */
  pendingDigest: z.array(pendingDigestFileSchema).exactOptional(),
  /** When a run last reconciled the state with the archive (in full, or from the chain since the last one). */
  reconciledAt: z.string().exactOptional(),
  /**
   * The chain head the last reconciliation's digest made: the next weekly reconciliation works from the
   * chain after it (`lib/archive/run/reconcileSince.ts`). Only moves forward. Absent: the next one is a full one.
   */
  reconciledHead: chainHeadSchema.exactOptional(),
  /** Where the weekly verify stands: what it verified, when, and up to which head (`lib/integrity/verify/verifyWeekly.ts`). */
  verified: verifyProgressSchema.exactOptional(),
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: itemVersion,
});

export type ArchiveMeta = z.infer<typeof archiveMetaSchema>;

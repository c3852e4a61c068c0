import * as z from 'zod';
import { itemVersion, sha256Hex, storedDay, storedObject } from './storedItem.ts';
import { verifyProgressSchema } from './verifyProgress.ts';

/** A digest chain's newest digest: its position, key, SHA-256 of its bytes and when it was written. */
export const chainHeadSchema = z.object({
  seq: z.number().int().positive(),
  key: z.string(),
  sha256: sha256Hex,
  at: z.string(),
});

export type ChainHead = z.infer<typeof chainHeadSchema>;

/** A data file (any dataset) or quarantined record noted for the next digest. */
export const pendingDigestFileSchema = storedObject({
  /** Its final key (`<dataset>/dt=<dt>/<name>`, `quarantine/day=<d>/<id>.json`). */
  key: z.string(),
  /** Where it is staged before publication (data files). */
  stagingKey: z.string().exactOptional(),
  /** When it was noted. */
  at: z.string(),
});

export type PendingDigestFile = z.infer<typeof pendingDigestFileSchema>;

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
   * the next digest lists, and what a run publishes first (`lib/digest/pendingDigest.ts`). Lets a run
   * work from what it knows instead of listing the archive.
   */
  pendingDigest: z.array(pendingDigestFileSchema).exactOptional(),
  /** When a run last reconciled the state with the archive (in full, or from the chain since the last one). */
  reconciledAt: z.string().exactOptional(),
  /**
   * The chain head the last reconciliation's digest made: the next weekly reconciliation works from the
   * chain after it (`lib/run/reconcileSince.ts`). Only moves forward. Absent: the next one is a full one.
   */
  reconciledHead: chainHeadSchema.exactOptional(),
  /** Where the weekly verify stands: what it verified, when, and up to which head (`lib/verify/verifyWeekly.ts`). */
  verified: verifyProgressSchema.exactOptional(),
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: itemVersion,
});

export type ArchiveMeta = z.infer<typeof archiveMetaSchema>;

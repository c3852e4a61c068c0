import * as z from 'zod';
import { sha256Hex } from '../../archive/state/storedItem.ts';

/** An order-free fingerprint of a set of objects: the sum of their hashes, and how many. */
const fingerprintSchema = z.object({ sum: sha256Hex, count: z.number().int().nonnegative() });

const checkKind = z.enum(['new', 'rotation']);

export const checksumJobRecordSchema = z.object({
  id: z.string(),
  /** `new`: everything written since the last check; `rotation`: a slice of older weeks. */
  kind: checkKind,
  submittedAt: z.string(),
  /** Objects written after (exclusive) this time, by the store's clock. */
  after: z.string().exactOptional(),
  /** Objects written before (exclusive) this time, by the store's clock. */
  before: z.string(),
  expected: fingerprintSchema,
});

export type ChecksumJobRecord = z.infer<typeof checksumJobRecordSchema>;

export const checksumVerdictSummarySchema = z.object({
  id: z.string(),
  kind: checkKind,
  checkedAt: z.string(),
  after: z.string().exactOptional(),
  before: z.string(),
  objects: z.number().int().nonnegative(),
  ok: z.boolean(),
});

export type ChecksumVerdictSummary = z.infer<typeof checksumVerdictSummarySchema>;

export const checksumVerdictSchema = checksumVerdictSummarySchema.extend({
  failures: z.array(z.object({ kind: z.string(), object: z.string().exactOptional(), message: z.string() })),
});

export type ChecksumVerdict = z.infer<typeof checksumVerdictSchema>;

/**
 * The weekly verify's checksum jobs (`lib/integrity/verify/checksumRotation.ts`). The store computes every object's
 * SHA-256 in a job; the verify keeps only an order-free fingerprint a week of what the digests say was
 * written that week (by the store's clock), and compares a job's report with the sum over its weeks.
 */
export const checksumProgressSchema = z.object({
  /** Week index (`floor(ms / week)` of the store's time) → fingerprint of the chain's objects written in it. */
  weeks: z.record(z.string().regex(/^-?\d+$/), fingerprintSchema),
  /** SHA-256 of the key files under `digests/` (public key, key check), as first checked in full. */
  keyFiles: z.record(z.string(), z.string()),
  /**
   * The rotation: a cursor over the closed weeks, oldest first, wrapping around; `startedAt` is when it
   * last started again from the oldest week.
   */
  rotation: z.object({
    startedAt: z.string(),
    cursor: z.number().int(),
    periodWeeks: z.number().int().positive(),
  }),
  /** Jobs submitted and not judged yet: what each covers and the fingerprint its report must have. */
  jobs: z.array(checksumJobRecordSchema),
  /** Judged jobs whose outcome no weekly verify has reported yet (`checkChecksumReport`). */
  verdicts: z.array(checksumVerdictSchema),
  /** The newest judged job of each kind: what was checked by the store, when. */
  lastChecked: z
    .object({
      new: checksumVerdictSummarySchema.exactOptional(),
      rotation: checksumVerdictSummarySchema.exactOptional(),
    })
    .exactOptional(),
});

export type ChecksumProgress = z.infer<typeof checksumProgressSchema>;

/**
 * The weekly verify's record. Everything written up to `head` was checked in full once; `rotation` re-checks
 * the chain from digest 1 a slice a week, so every file is checked again within `periodWeeks`.
 */
export const verifyProgressSchema = z.object({
  /** When the last weekly verify ran. */
  at: z.string(),
  /** The newest digest it checked (`seq`, key, SHA-256 of its bytes). */
  head: z.object({ seq: z.number().int().positive(), key: z.string(), sha256: z.string() }),
  /**
   * The store's own time of that digest (its `LastModified`): objects written later are new to the next
   * check, which compares with the store's clock only, never the verifier's.
   */
  boundary: z.string(),
  /** Objects under the listed prefixes written up to `boundary` and accounted for (listed by a digest). */
  objects: z.number().int().nonnegative(),
  /** Objects the checks found that no digest lists: reported every week while they stay. */
  unlisted: z.array(z.string()),
  rotation: z.object({
    startedAt: z.string(),
    nextSeq: z.number().int().positive(),
    periodWeeks: z.number().int().positive(),
  }),
  /**
   * The last complete scan of each window day the digests record (day → ISO time), carried from week to
   * week: the API comparison judges a day by it, and an incremental week reads only the new digests.
   * Absent (a progress from before it was kept): the next week reads it from the whole chain once.
   */
  lastScans: z.record(z.string(), z.string()).exactOptional(),
  /** When the whole archive was last checked in full (the first weekly verify, or a finished full verify job). */
  fullAt: z.string().exactOptional(),
  /** With store-side checksum jobs (S3 Batch Operations): what replaces the listing and the rotation above. */
  checksums: checksumProgressSchema.exactOptional(),
});

export type VerifyProgress = z.infer<typeof verifyProgressSchema>;

import * as z from 'zod';
import { isDay } from '../clock/day.ts';
import { type ArchiverErrorCode, ERROR_CODES } from '../errors/archiverError.ts';
import type { ActiveState, ArchiveMeta, DayState, Lease, PartitionManifest } from './stateStore.ts';

/**
 * Shapes of the state items as stored (the `data` JSON plus the `version` attribute). State is read back
 * by a later run, possibly of another release, so it is validated like any other boundary; fields a newer
 * release added are kept (loose objects) so an older one writing the item back does not drop them.
 */

const day = z.string().refine(isDay, { message: 'not a YYYY-MM-DD day' });
const version = z.number().int().nonnegative();

export const dayStateSchema = z.looseObject({
  day,
  scannedAges: z.array(z.number().int()),
  firstScannedAt: z.string().exactOptional(),
  lastScannedAt: z.string().exactOptional(),
  totalElements: z.number().int().exactOptional(),
  distinctSeen: z.number().int().exactOptional(),
  shortfall: z.number().int().exactOptional(),
  quarantined: z.number().int().exactOptional(),
  sealed: z.boolean(),
  sealedAt: z.string().exactOptional(),
  gap: z.boolean().exactOptional(),
  complete: z.boolean().exactOptional(),
  gapReason: z.string().exactOptional(),
  failure: z
    .looseObject({
      code: z
        .string()
        .transform((c): ArchiverErrorCode => (c in ERROR_CODES ? (c as ArchiverErrorCode) : 'INTERNAL')),
      message: z.string(),
      attempts: z.number().int().nonnegative(),
      firstFailedAt: z.string(),
      lastFailedAt: z.string(),
    })
    .exactOptional(),
  walk: z
    .object({
      passes: z.number().int().positive(),
      nextPage: z.number().int().nonnegative(),
      size: z.number().int().nonnegative(),
      planned: z.number().int().nonnegative(),
      totals: z.array(z.number().int().nonnegative()),
      observed: z.number().int().nonnegative(),
      stalled: z.number().int().nonnegative(),
      passStart: z.number().int().nonnegative(),
      pages: z.number().int().nonnegative(),
      idParts: z.number().int().nonnegative().exactOptional(),
      files: z.array(z.string().min(1)).exactOptional(),
    })
    .exactOptional(),
  deferredRuns: z.number().int().nonnegative().exactOptional(),
  version,
}) satisfies z.ZodType<DayState>;

export const manifestFileSchema = z.looseObject({
  name: z.string(),
  stagingKey: z.string(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .exactOptional(),
  runId: z.string(),
  fence: z.number().int(),
  committedAt: z.string(),
  published: z.boolean(),
  batch: z.string().exactOptional(),
});

export const partitionManifestSchema = z.looseObject({
  dt: day,
  dataset: z.enum(['history', 'active', 'findings']).exactOptional(),
  files: z.array(manifestFileSchema),
  version,
}) satisfies z.ZodType<PartitionManifest>;

const chainHeadSchema = z.object({
  seq: z.number().int().positive(),
  key: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  at: z.string(),
});

const fingerprintSchema = z.object({
  sum: z.string().regex(/^[0-9a-f]{64}$/),
  count: z.number().int().nonnegative(),
});
const verdictSummaryShape = {
  id: z.string(),
  kind: z.enum(['new', 'rotation']),
  checkedAt: z.string(),
  after: z.string().exactOptional(),
  before: z.string(),
  objects: z.number().int().nonnegative(),
  ok: z.boolean(),
};
/** The weekly verify's checksum jobs (`ChecksumProgress`). */
const checksumProgressSchema = z.object({
  weeks: z.record(z.string().regex(/^-?\d+$/), fingerprintSchema),
  keyFiles: z.record(z.string(), z.string()),
  rotation: z.object({
    startedAt: z.string(),
    cursor: z.number().int(),
    periodWeeks: z.number().int().positive(),
  }),
  jobs: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['new', 'rotation']),
      submittedAt: z.string(),
      after: z.string().exactOptional(),
      before: z.string(),
      expected: fingerprintSchema,
    }),
  ),
  verdicts: z.array(
    z.object({
      ...verdictSummaryShape,
      failures: z.array(
        z.object({ kind: z.string(), object: z.string().exactOptional(), message: z.string() }),
      ),
    }),
  ),
  lastChecked: z
    .object({
      new: z.object(verdictSummaryShape).exactOptional(),
      rotation: z.object(verdictSummaryShape).exactOptional(),
    })
    .exactOptional(),
});

export const archiveMetaSchema = z.looseObject({
  firstRunAt: z.string(),
  firstWindowStart: day,
  lastRunAt: z.string().exactOptional(),
  lastSuccessAt: z.string().exactOptional(),
  learnedWindowDays: z.number().int().positive().exactOptional(),
  chainHead: chainHeadSchema.exactOptional(),
  pendingDigest: z
    .array(z.looseObject({ key: z.string(), stagingKey: z.string().exactOptional(), at: z.string() }))
    .exactOptional(),
  reconciledAt: z.string().exactOptional(),
  reconciledHead: chainHeadSchema.exactOptional(),
  verified: z
    .object({
      at: z.string(),
      head: z.object({ seq: z.number().int().positive(), key: z.string(), sha256: z.string() }),
      boundary: z.string(),
      objects: z.number().int().nonnegative(),
      unlisted: z.array(z.string()),
      rotation: z.object({
        startedAt: z.string(),
        nextSeq: z.number().int().positive(),
        periodWeeks: z.number().int().positive(),
      }),
      fullAt: z.string().exactOptional(),
      checksums: checksumProgressSchema.exactOptional(),
    })
    .exactOptional(),
  version,
}) satisfies z.ZodType<ArchiveMeta>;

const nullableText = z.string().nullable();

export const storedObservedFieldsSchema = z.looseObject({
  id: z.string(),
  user_id: z.number().int(),
  token_id: z.number().int(),
  token: nullableText,
  token_hmac: nullableText,
  token_name: nullableText,
  virtual_token: nullableText,
  virtual_token_hmac: nullableText,
  virtual_token_name: nullableText,
  subdomain: z.string(),
  customdomain: nullableText,
  mode: z.string(),
  mode_udp: z.string(),
  port: z.number().int(),
  creation_time: z.string(),
  last_update_time: z.string(),
  extra_json: nullableText,
  join_token_hmac: nullableText.default(null),
});

export const activeObservationSchema = z.looseObject({
  fields: storedObservedFieldsSchema,
  hash: z.string(),
  seq: z.number().int().nonnegative(),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
});

export const pendingActiveRowSchema = z.looseObject({
  row_id: z.string(),
  observed_at: z.string(),
  event: z.enum(['seen', 'changed', 'gone']),
  id: z.string(),
  fields: storedObservedFieldsSchema.exactOptional(),
});

export const activeStateSchema = z.looseObject({
  sessions: z.record(z.string(), activeObservationSchema),
  closed: z
    .record(z.string(), z.looseObject({ seq: z.number().int().nonnegative(), goneAt: z.string() }))
    .exactOptional(),
  pending: z
    .looseObject({
      dt: day,
      rows: z.array(pendingActiveRowSchema),
      batch: z.string().exactOptional(),
      sealed: z.boolean().exactOptional(),
    })
    .exactOptional(),
  lastSnapshotAt: z.string().exactOptional(),
  gaps: z.array(z.looseObject({ from: z.string(), to: z.string(), ms: z.number() })),
  version,
}) satisfies z.ZodType<ActiveState>;

/** The lease item's data (no `version` in the entity: the item's version only orders its writes). */
export const leaseSchema = z.object({
  owner: z.string(),
  fence: z.number().int().nonnegative(),
  expiresAt: z.number(),
}) satisfies z.ZodType<Lease>;

import * as z from 'zod';
import { canonicalJson } from '../records/canonicalJson.ts';
import { SIGNATURE_ALGORITHMS } from './digestSigner.ts';

export const DIGEST_FORMAT_VERSION = 1;
/**
 * Revision of docs/digest-format.md: a change to its text that leaves the bytes of a digest alone gets a
 * new revision; a change to the bytes gets a new DIGEST_FORMAT_VERSION.
 */
export const DIGEST_SPEC_REVISION = 2;

/**
 * One file as a digest lists it. `rows`, `min`, `max` are null when the file is not Parquet: a
 * quarantined record (`dataset: 'quarantine'`, JSON), or a data file that could not be read.
 */
export const digestFileSchema = z.strictObject({
  key: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative().nullable(),
  dataset: z.enum(['history', 'active', 'findings', 'quarantine']),
  dt: z.string().nullable(),
  /** Min and max `start_time` (history), `observed_at` (active) or `detected_at` (findings), ISO 8601. */
  min: z.string().nullable(),
  max: z.string().nullable(),
});

/** A day the run that wrote the digest scanned: lets verify tell late sessions from missing ones. */
export const digestScanSchema = z.strictObject({
  day: z.string(),
  scannedAt: z.string(),
  complete: z.boolean(),
});

export const digestBodySchema = z.strictObject({
  format: z.literal(DIGEST_FORMAT_VERSION),
  seq: z.number().int().positive(),
  runId: z.string(),
  createdAt: z.string(),
  keyId: z.string(),
  algorithm: z.enum(SIGNATURE_ALGORITHMS),
  previous: z.strictObject({ key: z.string(), sha256: z.string() }).nullable(),
  scans: z.array(digestScanSchema),
  files: z.array(digestFileSchema),
});

export const digestSchema = digestBodySchema.extend({ signature: z.string() });

export const publicKeyInfoSchema = z.object({
  keyId: z.string(),
  algorithm: z.enum(SIGNATURE_ALGORITHMS),
  publishedAt: z.string(),
});

export type DigestFile = z.infer<typeof digestFileSchema>;
export type DigestScan = z.infer<typeof digestScanSchema>;
export type DigestBody = z.infer<typeof digestBodySchema>;
export type Digest = z.infer<typeof digestSchema>;
export type PublicKeyInfo = z.infer<typeof publicKeyInfoSchema>;

/**
 * The exact bytes a digest's signature covers: canonical JSON of every member except `signature`. A
 * verifier passes the JSON as stored (every member, known or not), never a parsed copy a schema trimmed.
 */
export function signedBytes(digest: DigestBody | Digest | Record<string, unknown>): Uint8Array {
  const { signature: _omit, ...body } = digest as Record<string, unknown>;
  return new TextEncoder().encode(canonicalJson(body));
}

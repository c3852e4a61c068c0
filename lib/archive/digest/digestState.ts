import * as z from 'zod';
import { sha256Hex, storedObject } from '../state/storedItem.ts';

/*
 * The digest chain's items in the archive's META (`lib/archive/state/archiveMeta.ts`), declared beside the digest:
 * the chain's head as this archiver last wrote it, and the files the next digest lists.
 */

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

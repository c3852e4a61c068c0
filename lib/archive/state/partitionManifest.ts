import * as z from 'zod';
import { itemVersion, sha256Hex, storedDay, storedObject } from './storedItem.ts';

/**
 * The datasets of the archive: `history/` (the API's history), `active/` (snapshots of the active list)
 * and `findings/` (what the detection rules found).
 */
export const DATASETS = ['history', 'active', 'findings'] as const;
export type Dataset = (typeof DATASETS)[number];

/** One committed Parquet file of a partition. */
export const manifestFileSchema = storedObject({
  /** File name inside `history/dt=<dt>/`. */
  name: z.string(),
  /** Key under which the file was staged before publication. */
  stagingKey: z.string(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /**
   * Lower-case hex SHA-256 of the staged file as its writer staged it: a file whose bytes (or size) differ
   * when it is published or digested is refused (`STAGED_FILE_CHANGED`). Absent in entries written before
   * it was recorded: those are published and digested unchecked, as they were.
   */
  sha256: sha256Hex.exactOptional(),
  runId: z.string(),
  fence: z.number().int(),
  committedAt: z.string(),
  published: z.boolean(),
  /**
   * The batch of rows the file holds, when its writer commits whole batches (the live-session rows):
   * a batch already listed is not committed again, without reading any file's ids.
   */
  batch: z.string().exactOptional(),
});

export type ManifestFile = z.infer<typeof manifestFileSchema>;

/** The commit log of one Hive partition `dt=<dt>`: the only source of truth of what is archived. */
export const partitionManifestSchema = storedObject({
  dt: storedDay,
  /** Absent = `history`. */
  dataset: z.enum(DATASETS).exactOptional(),
  files: z.array(manifestFileSchema),
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: itemVersion,
});

export type PartitionManifest = z.infer<typeof partitionManifestSchema>;

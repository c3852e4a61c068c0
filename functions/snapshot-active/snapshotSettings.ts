import * as z from 'zod';
import { ArchiverError } from '../../lib/errors/archiverError.ts';

/** Settings only the snapshot function reads (the rest comes from `loadConfig`). */
export interface SnapshotSettings {
  /** The schedule the stack runs the function on; gaps are measured against it. */
  scheduleMs: number;
  /** How long rows are held in the state before they are committed as one file (`SNAPSHOT_COMMIT_MINUTES`). */
  commitEveryMs: number;
}

const schema = z.object({
  SNAPSHOT_INTERVAL_MINUTES: z.coerce
    .number({ error: 'SNAPSHOT_INTERVAL_MINUTES must be a number' })
    .int('SNAPSHOT_INTERVAL_MINUTES must be a whole number')
    .min(1, 'SNAPSHOT_INTERVAL_MINUTES must be at least 1')
    .max(1440, 'SNAPSHOT_INTERVAL_MINUTES must be at most 1440')
    .default(5),
  SNAPSHOT_COMMIT_MINUTES: z.coerce
    .number({ error: 'SNAPSHOT_COMMIT_MINUTES must be a number' })
    .int('SNAPSHOT_COMMIT_MINUTES must be a whole number')
    .min(0, 'SNAPSHOT_COMMIT_MINUTES must be at least 0')
    .max(1440, 'SNAPSHOT_COMMIT_MINUTES must be at most 1440')
    .default(60),
});

/** Reads the snapshot settings from the environment; a bad value is `CONFIG_INVALID` with the reason. */
export function snapshotSettings(env: Record<string, string | undefined>): SnapshotSettings {
  const parsed = schema.safeParse({
    SNAPSHOT_INTERVAL_MINUTES:
      env.SNAPSHOT_INTERVAL_MINUTES === '' ? undefined : env.SNAPSHOT_INTERVAL_MINUTES,
    SNAPSHOT_COMMIT_MINUTES: env.SNAPSHOT_COMMIT_MINUTES === '' ? undefined : env.SNAPSHOT_COMMIT_MINUTES,
  });
  if (!parsed.success) {
    throw new ArchiverError('CONFIG_INVALID', parsed.error.issues.map((i) => i.message).join('; '), {
      cause: parsed.error,
    });
  }
  return {
    scheduleMs: parsed.data.SNAPSHOT_INTERVAL_MINUTES * 60_000,
    commitEveryMs: parsed.data.SNAPSHOT_COMMIT_MINUTES * 60_000,
  };
}

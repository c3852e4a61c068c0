import type { Day } from '../../foundation/index.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { ArchiveDeps } from './runTypes.ts';

/**
 * The archive's META, written by its first run (when it started, and the first window's oldest day: the
 * days from there on are the archive's to keep) and read by every later one.
 */
export async function establishMeta(
  deps: ArchiveDeps,
  started: Date,
  windowStart: Day,
): Promise<ArchiveMeta> {
  const existing = await deps.state.getMeta();
  if (existing) return existing;
  try {
    return await deps.state.putMeta({
      firstRunAt: started.toISOString(),
      firstWindowStart: windowStart,
      version: 0,
    });
  } catch (error) {
    // A lost response or a racing first run: whoever wrote it, it is there now.
    const stored = await deps.state.getMeta();
    if (stored) return stored;
    throw error;
  }
}

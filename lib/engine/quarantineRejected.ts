import type { Day } from '../clock/day.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { RejectedRecord } from '../upstream/schemas.ts';
import { archiveKeys } from './archiveKeys.ts';

/**
 * Keeps every record that failed validation under `quarantine/day=<day>/<raw id>.json`, with the
 * reason. The key is the content hash, so a record seen again is not written twice.
 */
export async function quarantineRejected(
  objects: ObjectStore,
  day: Day,
  rejected: ReadonlyMap<string, RejectedRecord>,
  now: Date,
): Promise<number> {
  let written = 0;
  for (const [id, r] of rejected) {
    const key = archiveKeys.quarantine(day, id);
    if (await objects.head(key)) continue;
    await objects.put(
      key,
      `${JSON.stringify({ day, reason: r.reason, quarantinedAt: now.toISOString(), raw: r.raw })}\n`,
    );
    written++;
  }
  return written;
}

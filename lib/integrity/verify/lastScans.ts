import type { DigestChain } from '../../archive/index.ts';
import { addDays, type Day } from '../../foundation/index.ts';

/** Latest complete scan time (epoch ms) of each upstream day, from the scans the digests record. */
export function lastCompleteScans(chain: DigestChain): Map<string, number> {
  const last = new Map<string, number>();
  for (const e of chain.entries) {
    for (const s of e.digest?.scans ?? []) {
      if (!s.complete) continue;
      const t = Date.parse(s.scannedAt);
      if (!Number.isNaN(t) && t > (last.get(s.day) ?? Number.NEGATIVE_INFINITY)) last.set(s.day, t);
    }
  }
  return last;
}

/**
 * The last complete scans carried from one weekly verify to the next (day → ISO time), merged with those
 * of the digests written since (the later time of each day), and kept from `oldest` on: an incremental
 * week reads only the new digests, and a day's last complete scan is often in an older one (a day is
 * scanned at a few ages only).
 */
export function carryLastScans(
  carried: Readonly<Record<string, string>>,
  since: ReadonlyMap<string, number>,
  oldest: Day,
): Record<string, string> {
  const merged = new Map<string, number>();
  for (const [day, at] of Object.entries(carried)) {
    const t = Date.parse(at);
    if (!Number.isNaN(t)) merged.set(day, t);
  }
  for (const [day, t] of since) if (t > (merged.get(day) ?? Number.NEGATIVE_INFINITY)) merged.set(day, t);
  return Object.fromEntries(
    [...merged]
      .filter(([day]) => day >= oldest)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([day, t]) => [day, new Date(t).toISOString()]),
  );
}

/** The days a weekly verify keeps the last scans of: the window at `today`, and a day of margin. */
export const lastScansFrom = (windowStart: Day): Day => addDays(windowStart, -1);

/**
 * Upstream ingestion lag allowed by default: a history row may appear up to this long after its session
 * ended (the emulator models up to 48 h; the real value is not documented), so a session that ended
 * this close before a scan may not have been visible to it yet.
 */
export const DEFAULT_INGESTION_GRACE_MS = 48 * 3_600_000;

/**
 * Pending or missing, for a record the archive lacks: it is pending when the session ended (plus
 * `graceMs` of upstream ingestion lag) after the day's last complete scan (for a day never scanned
 * completely: after the newest run), so no scan could have seen it; otherwise it was visible to a
 * scan that should have archived it and is missing. With no run at all, everything is pending.
 */
export function classifyAbsent(
  endMs: number | null,
  lastScanMs: number | undefined,
  graceMs: number,
): 'pending' | 'missing' {
  if (lastScanMs === undefined || endMs === null) return 'pending';
  return endMs + graceMs > lastScanMs ? 'pending' : 'missing';
}

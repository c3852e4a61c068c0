import type { DigestChain } from '../digest/readDigestChain.ts';

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

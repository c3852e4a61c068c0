/**
 * How the emulated COUNT behind `totalElements` goes wrong. Spring computes the total
 * with a separate COUNT query; a cached or lagging one disagrees with the content.
 * - `floor-pages`: rounded DOWN to whole pages of the echoed size, as a cached count would be, so a
 *   walker that trusts `totalPages` never asks for the last, partial page;
 * - `lag`: counted on the snapshot of `lagMs` ago (rows ingested since are missing from the total).
 */
export type StaleTotals = { mode: 'floor-pages' } | { mode: 'lag'; lagMs: number };

/** Default age of the `lag` snapshot. */
export const DEFAULT_STALE_LAG_MS = 6 * 3_600_000;

/**
 * The total the emulated COUNT reports for a result of `trueCount` rows; `countAtSnapshot` gives the
 * count of the older snapshot (only called in `lag` mode).
 */
export function staleCount(
  stale: StaleTotals | undefined,
  size: number,
  trueCount: number,
  countAtSnapshot: (lagMs: number) => number,
): number {
  if (stale === undefined) return trueCount;
  if (stale.mode === 'floor-pages') return Math.floor(trueCount / size) * size;
  return Math.min(trueCount, countAtSnapshot(stale.lagMs));
}

/**
 * Passes in a row that add nothing before a walk stops that holds every row its short pages proved
 * (`last page * size + its length`) but fewer than `totalElements`: a COUNT stuck above the content
 * would otherwise cost every remaining pass. The shortfall is recorded and the next scan goes on from
 * what is archived. Rows the pages themselves proved are given up this way only when every pass of the
 * streak served every row the walk holds and the same of them twice in their place (a server that holds a
 * row twice, `passVerdict`); otherwise only after {@link BARREN_PASSES}.
 */
export const STALLED_PASSES = 5;

/**
 * Passes in a row that add nothing, whatever the rows a walk still lacks, before it stops. Where every
 * request reshuffles the order, a pass serves only part of a day, so a row the server holds twice (or one it
 * never serves) and a row the shuffle has not shown yet look alike, and no pass proves a stall by the rules
 * above. A row that is served at all turns up in a pass of such a streak all but surely: under a full
 * reshuffle a pass misses a given row about 37% of the time (1/e), ten passes in a row 0.005%. After this many
 * the day is recorded short, as a stall is, and scanned again later, instead of walked to `maxPasses`.
 */
export const BARREN_PASSES = 10;

/**
 * The largest day the archive proves complete: the most ids the fan-out's finish step unions within the
 * engine's 1769 MiB (`npm run bench -- --only=finish-union`: 26M ids peaked at 1133 MiB, 22M at 1392, 40M at
 * 3000; at the engine's earlier 1024 MiB it was 17M; test/docs/fanoutFigures.test.ts holds it to
 * bench/RESULTS.json). A day past it is failed `DAY_TOO_BIG`.
 */
export const MAX_DAY_SESSIONS = 26_000_000;

/**
 * The most pages one pass of a day may fetch at the page size the server echoed: `MAX_PAGES_PER_DAY` when a
 * team sets it, else the pages the largest day the archive proves needs at that size (plus the empty page
 * that proves the end). A cap in pages alone would bind at a small page size long before the size limit.
 */
export function pageCap(maxPagesPerDay: number | undefined, size: number): number {
  return maxPagesPerDay ?? Math.ceil(MAX_DAY_SESSIONS / Math.max(1, size)) + 1;
}

/** Default cap on passes: enough for a million-row day reshuffled per request (about 19 passes), twice over. */
export const DEFAULT_MAX_PASSES = 50;

/**
 * Passes in a row that add nothing before a walk stops that holds every row its short pages proved
 * (`last page * size + its length`) but fewer than `totalElements`: a COUNT stuck above the content
 * would otherwise cost every remaining pass. The shortfall is recorded and the next scan goes on from
 * what is archived. Rows the pages themselves proved are never given up this way, only at `maxPasses`.
 */
export const STALLED_PASSES = 5;

/** Default cap on passes: enough for a million-row day reshuffled per request (about 19 passes), twice over. */
export const DEFAULT_MAX_PASSES = 50;

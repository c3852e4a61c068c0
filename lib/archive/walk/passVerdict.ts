import { REPEATED_ROWS_PASSES, STALLED_PASSES } from '../config/walkLimits.ts';

/**
 * What one pass of a day's walk showed, whichever driver walked it (one run's `DayWalk`, or the fan-out's
 * ranges joined by its finish step). Every count is of distinct records: archived rows and quarantined
 * items alike, since both are records the server holds.
 */
export interface PassEvidence {
  /** Every `totalElements` the walk has seen, this pass's included. */
  totals: Iterable<number>;
  /** The `totalElements` this pass's pages answered (a subset of `totals`). */
  passTotals: Iterable<number>;
  /** The highest `totalElements` of the passes before this one (0 on a first pass). */
  totalBefore: number;
  /**
   * The server may still be adding sessions to the day (`mayStillBeOpen`): its total grows between passes
   * because the day is live, not because the count lies.
   */
  open: boolean;
  /** Rows earlier passes' short pages proved the server holds (`observed` of the walk so far). */
  observedBefore: number;
  /**
   * The pass's pages shorter than `size`, in any order (each range of a fan-out names its first). Only the
   * first of them proves rows: `page × size + its length` rows exist. An empty page fetched past it (a
   * total that promised more pages) proves nothing.
   */
  shortPages: Iterable<{ page: number; length: number }>;
  /** The page size the server echoed for this pass. */
  size: number;
  /** Distinct records the walk holds after this pass. */
  collected: number;
  /** Distinct records the walk held when this pass began. */
  passStart: number;
  /** This pass's number, from 1. */
  pass: number;
  /** Passes in a row before this one that added nothing while only the total said more rows exist. */
  stalledBefore: number;
  /** The most passes the walk may make. */
  maxPasses: number;
  /**
   * What this pass served, when the walk counted it (a pass after one that added nothing short of the
   * proven rows): the distinct records, and each record served more than once with its extra copies.
   */
  served?: ServedInPass;
  /** The rows served twice in every pass of the streak before this one (`repeated` of its verdict). */
  repeatedBefore?: ReadonlyMap<string, number>;
  /** Passes in a row before this one that served the same rows twice (`repeatedPasses` of its verdict). */
  repeatedPassesBefore?: number;
}

/** The records one pass served: how many distinct, and those served more than once (id → extra copies). */
export interface ServedInPass {
  distinct: number;
  twice: ReadonlyMap<string, number>;
}

/** What the completeness rules conclude from a pass. */
export interface PassVerdict {
  /** The highest total seen. */
  total: number;
  /** Rows the short pages proved so far (`last page × size + its length`, the largest). */
  observed: number;
  /** The numbers were caught lying: two totals, or more rows than the total. */
  unreliableTotals: boolean;
  /** Distinct records this pass added. */
  added: number;
  /** Passes in a row that added nothing while only the total said more rows exist. */
  stalled: number;
  /** The day is proven complete. */
  complete: boolean;
  /**
   * The rows served twice in every pass of a streak that each added nothing and served every record held
   * (id → the fewest extra copies a pass of the streak served), when they cover the rows the pages prove
   * beyond the walk's; undefined otherwise.
   */
  repeated: ReadonlyMap<string, number> | undefined;
  /** Passes in a row that served those same rows twice ({@link REPEATED_ROWS_PASSES} of them end the walk). */
  repeatedPasses: number;
  /**
   * An open day whose walk holds every row that existed when this pass began (the least total of the pass,
   * and the rows the short pages proved) while its total only grew: the walk ends, not complete, and a later
   * scan of the closed day proves it. Without this a live day, which adds rows between any two passes, would
   * be walked to `maxPasses` every time.
   */
  caughtUp: boolean;
  /** The walk ends here: complete, caught up with an open day, stalled {@link STALLED_PASSES} times, or out of passes. */
  ends: boolean;
  /** Rows the total or the short pages promise that the walk does not hold. */
  shortfall: number;
}

/**
 * The day's completeness rules, in one place (the day walk and the fan-out's finish both judge by them):
 * - the day is complete when the records held reach both the highest total and the rows the short page
 *   proved, and, once the numbers were caught lying (two totals, or rows beyond the total), only when a
 *   whole later pass then added nothing;
 * - a pass that added nothing while the walk holds every row the short pages proved counts toward a stall
 *   (a COUNT stuck above the content); rows the pages themselves proved are never given up this way;
 * - a day the server may still be adding to (open) ends its walk, not complete, once the walk holds every row
 *   that existed when the pass began, its total having only grown (`caughtUp`);
 * - a day whose pages prove more rows than the walk can hold, because the server serves some rows twice,
 *   is complete once {@link REPEATED_ROWS_PASSES} passes in a row added nothing, each served every record
 *   held, and the same rows came back twice in each, enough of them to cover the rows proved beyond it;
 * - the walk ends when complete, caught up, after {@link STALLED_PASSES} stalled passes in a row, or at
 *   `maxPasses`.
 */
export function passVerdict(e: PassEvidence): PassVerdict {
  const totals = new Set(e.totals);
  const total = Math.max(0, ...totals);
  let first: { page: number; length: number } | undefined;
  for (const p of e.shortPages) if (p.length < e.size && (!first || p.page < first.page)) first = p;
  const observed = Math.max(e.observedBefore, first ? first.page * e.size + first.length : 0);
  const added = e.collected - e.passStart;
  const unreliableTotals = totalsUnreliable(totals, e.collected);
  const repeated = added === 0 && e.collected < observed ? repeatedRows(e) : undefined;
  const extra = repeated === undefined ? 0 : sum(repeated.values());
  // The rows the pages prove beyond the walk's are rows the server served twice...
  const explained = repeated !== undefined && e.collected + extra >= observed;
  // ...and so is the total's excess: then the day is complete once they came back often enough.
  const covered = explained && e.collected + extra >= total;
  const repeatedPasses = covered ? (e.repeatedPassesBefore ?? 0) + 1 : 0;
  // A total above even the rows served twice is a COUNT stuck above the content: a stall, as below.
  const stalled =
    added === 0 && (e.collected >= observed || (explained && !covered)) ? e.stalledBefore + 1 : 0;
  const duplicated = repeatedPasses >= REPEATED_ROWS_PASSES;
  const complete =
    duplicated ||
    (e.collected >= Math.max(total, observed) && (!unreliableTotals || (e.pass > 1 && added === 0)));
  const caughtUp = !complete && e.open && caughtUpWithOpenDay(e, total, observed);
  return {
    total,
    observed,
    unreliableTotals,
    added,
    stalled,
    complete,
    repeated: explained ? repeated : undefined,
    repeatedPasses,
    caughtUp,
    ends: walkEnds({ complete, caughtUp, pass: e.pass, stalled, maxPasses: e.maxPasses }),
    // Complete by rows served twice: nothing is missing, though the pages prove more rows than the walk holds.
    shortfall: complete ? 0 : shortfallOf(total, observed, e.collected),
  };
}

/**
 * The rows this pass served twice that every pass of the streak before it served twice as well (with the
 * fewest extra copies), when the pass served every record the walk holds; undefined when the pass was not
 * counted or left a held record out (then a reshuffled order, not the server's rows, explains the repeats).
 */
function repeatedRows(e: PassEvidence): Map<string, number> | undefined {
  const served = e.served;
  if (served === undefined || served.distinct !== e.collected || served.twice.size === 0) return undefined;
  const before = e.repeatedBefore;
  const out = new Map<string, number>();
  for (const [id, copies] of served.twice) {
    const earlier = before === undefined ? copies : before.get(id);
    if (earlier !== undefined) out.set(id, Math.min(copies, earlier));
  }
  return out.size > 0 ? out : undefined;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/**
 * Whether the walk of an open day holds everything that existed when this pass began: the totals only ever
 * grew (none below an earlier pass's, the records held never above the highest, as a live day's are), and
 * the records held reach the least total of this pass and the rows the short pages proved.
 */
function caughtUpWithOpenDay(e: PassEvidence, total: number, observed: number): boolean {
  const passTotals = [...e.passTotals];
  if (passTotals.length === 0) return false;
  const least = Math.min(...passTotals);
  return least >= e.totalBefore && e.collected <= total && e.collected >= Math.max(least, observed);
}

/** Whether the numbers were caught lying: two totals seen, or more records held than the highest total. */
export function totalsUnreliable(totals: ReadonlySet<number>, collected: number): boolean {
  return totals.size > 1 || collected > Math.max(0, ...totals);
}

/** Rows the highest total or the short pages promise beyond the `collected` records held. */
export function shortfallOf(total: number, observed: number, collected: number): number {
  return Math.max(0, Math.max(total, observed) - collected);
}

/** Whether a walk ends after pass `pass`: proven complete, caught up with an open day, stalled, or out of passes. */
export function walkEnds(at: {
  complete: boolean;
  caughtUp: boolean;
  pass: number;
  stalled: number;
  maxPasses: number;
}): boolean {
  return at.complete || at.caughtUp || at.pass >= at.maxPasses || at.stalled >= STALLED_PASSES;
}

import { BARREN_PASSES, STALLED_PASSES } from '../config/walkLimits.ts';

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
  /** Passes in a row before this one that added nothing, whatever the walk lacked (absent: none). */
  barrenBefore?: number;
  /** The most passes the walk may make. */
  maxPasses: number;
  /**
   * What this pass served, when the walk counted it (a pass after one that added nothing short of the
   * proven rows): the distinct records, and each record served more than once with its extra copies.
   */
  served?: ServedInPass;
  /** The rows served twice in every pass of the stall streak before this one (`repeated` of its verdict). */
  repeatedBefore?: ReadonlyMap<string, number>;
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
  /** Passes in a row that added nothing, this one included, whatever the walk lacked ({@link BARREN_PASSES}). */
  barren: number;
  /** The day is proven complete. */
  complete: boolean;
  /**
   * The rows served twice in every pass of a stall streak that each added nothing and served every record
   * held (id → the fewest extra copies a pass of the streak served), when they cover the rows the pages
   * prove beyond the walk's; undefined otherwise.
   */
  repeated: ReadonlyMap<string, number> | undefined;
  /**
   * An open day whose walk holds every row that existed when this pass began (the least total of the pass,
   * and the rows the short pages proved) while its total only grew: the walk ends, not complete, and a later
   * scan of the closed day proves it. Without this a live day, which adds rows between any two passes, would
   * be walked to `maxPasses` every time.
   */
  caughtUp: boolean;
  /**
   * The walk ends here: complete, caught up with an open day, stalled {@link STALLED_PASSES} times, barren
   * {@link BARREN_PASSES} times, or out of passes.
   */
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
 *   (a COUNT stuck above the content); rows the pages themselves proved are given up this way only as below;
 * - a day the server may still be adding to (open) ends its walk, not complete, once the walk holds every row
 *   that existed when the pass began, its total having only grown (`caughtUp`);
 * - a pass that added nothing while short of the rows the short pages proved counts toward a stall too when
 *   it served every record held and the rows the pages prove beyond them came as copies of the same held
 *   rows in every pass of the streak (a server that holds a row twice: two records alike in every field);
 * - whatever the walk lacks, {@link BARREN_PASSES} passes in a row that added nothing end it, short (a day
 *   reshuffled on every request, where no pass serves every row held, proves no stall by the rule above);
 * - the walk ends when complete, caught up, after {@link STALLED_PASSES} stalled passes in a row, after
 *   {@link BARREN_PASSES} barren ones, or at `maxPasses`.
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
  // The rows the pages prove beyond the walk's, served as copies of rows it holds: a stall too. The day stays
  // short (its pages prove a row no pass has shown), but it is not walked to `maxPasses` for it.
  const explained = repeated !== undefined && e.collected + sum(repeated.values()) >= observed;
  const stalled = added === 0 && (e.collected >= observed || explained) ? e.stalledBefore + 1 : 0;
  const barren = added === 0 ? (e.barrenBefore ?? 0) + 1 : 0;
  const complete =
    e.collected >= Math.max(total, observed) && (!unreliableTotals || (e.pass > 1 && added === 0));
  const caughtUp = !complete && e.open && caughtUpWithOpenDay(e, total, observed);
  return {
    total,
    observed,
    unreliableTotals,
    added,
    stalled,
    barren,
    complete,
    repeated: explained ? repeated : undefined,
    caughtUp,
    ends: walkEnds({ complete, caughtUp, pass: e.pass, stalled, barren, maxPasses: e.maxPasses }),
    shortfall: shortfallOf(total, observed, e.collected),
  };
}

/**
 * The rows this pass served twice that every pass of the stall streak before it served twice as well (with
 * the fewest extra copies), when the pass served every record the walk holds; undefined when the pass was
 * not counted or left a held record out (then a reshuffled order, not the server's rows, explains the repeats).
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

/**
 * Whether a walk ends after pass `pass`: proven complete, caught up with an open day, stalled, barren, or out
 * of passes.
 */
export function walkEnds(at: {
  complete: boolean;
  caughtUp: boolean;
  pass: number;
  stalled: number;
  barren: number;
  maxPasses: number;
}): boolean {
  return (
    at.complete ||
    at.caughtUp ||
    at.pass >= at.maxPasses ||
    at.stalled >= STALLED_PASSES ||
    at.barren >= BARREN_PASSES
  );
}

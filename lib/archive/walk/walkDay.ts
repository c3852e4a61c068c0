import {
  ArchiverError,
  type Day,
  type DeadlineBudget,
  IdSet,
  Limiter,
  mapLimit,
} from '../../foundation/index.ts';
import { DEFAULT_MAX_PASSES, pageCap, STALLED_PASSES } from '../config/walkLimits.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import type { KeyedRecord, KeyedResult } from '../records/keyedRecord.ts';
import type { HistoryPage, HistoryRecord, RejectedRecord } from '../records/schemas.ts';
import type { WalkProgress } from '../state/dayState.ts';
import type { RequestGate, UpstreamApi } from '../upstream/upstreamApi.ts';
import { pageAbsorber } from './pageAbsorber.ts';
import { pageLimit } from './pageLimit.ts';
import { passVerdict, shortfallOf, totalsUnreliable, walkEnds } from './passVerdict.ts';
import { ServedIds } from './servedIds.ts';

export type { WalkProgress };
/** The walk's limits live with the config that documents them (lib/archive/config/walkLimits.ts). */
export { DEFAULT_MAX_PASSES, STALLED_PASSES };

/**
 * Pages a walk may hold per request it may have in flight: one being fetched, one fetched and waiting for
 * (or in) `absorb`. So at most `2 × concurrency` parsed pages are in memory.
 */
export const PAGES_HELD_PER_REQUEST = 2;

export interface WalkOptions {
  pageSize: number;
  concurrency: number;
  /** Cap on passes (each a whole walk of the day's pages); see {@link STALLED_PASSES} for the other stop. */
  maxPasses: number;
  /**
   * `MAX_PAGES_PER_DAY` when set: a cap on the pages of one pass, so an absurd `totalPages` or a server that
   * never ends fails the day. Unset, the cap follows from the page size the server echoes (`pageCap`).
   */
  maxPagesPerDay: number | undefined;
  /**
   * The server may still be adding sessions to the day (`mayStillBeOpen` at the walk's start): the walk ends,
   * not complete, once it holds every row that existed when a pass began (see `passVerdict`).
   */
  open?: boolean;
  /** The run's time: once spent, the walk asks for no more pages and returns `interrupted`. */
  budget?: DeadlineBudget;
  /** Where every valid row goes as soon as its page arrives; it dedupes them (see {@link WalkSink}). */
  sink: WalkSink;
  /** Key of the quarantine ids (keyed, so a quarantine file name is never an unkeyed hash of a token). */
  tokenKey: Uint8Array;
  /**
   * The record keyed for the sink (`keyRecord`: its `record_id` is the dedupe key, its row under the
   * token policy is built only if the sink keeps it), or why it cannot become a row: then it is quarantined.
   */
  keyRecord: (record: HistoryRecord) => KeyedResult;
  /**
   * `totalElements` of this day's last scan, if any: a hint only. Page 1 goes out beside page 0 of a
   * first pass (see {@link walkDay}) unless the last scan found the day within one page.
   */
  expectedTotal?: number;
  /**
   * Where an earlier run's walk of this day stopped (its deadline came): this walk goes on from there,
   * with the sink already holding that walk's rows, so the evidence is the union of both runs.
   */
  resume?: WalkProgress;
}

/**
 * Takes the records of a walk as pages arrive and keeps each distinct `record_id` once, building the
 * row (`record.row()`) only of a record it keeps: a rescan meets mostly archived records. `add` returns a
 * promise only when the walk must wait (back-pressure: rows are encoded as they come); `distinct`
 * counts the distinct records taken so far, which is what the walk's completeness rules count.
 */
export interface WalkSink {
  add(record: KeyedRecord): undefined | Promise<void>;
  /** A hint: the server reported `total` rows for `day` (so sets can be sized once, not grown). */
  expect?(day: Day, total: number): void;
  readonly distinct: number;
  /**
   * Resolves once `distinct` counts everything the sink holds (a resumed walk's earlier ids may still be
   * on their way while its first pages arrive): the walk waits for it before applying its rules.
   */
  settled?(): Promise<void>;
}

/** A sink that dedupes by `record_id` (16 bytes an id) and hands each distinct row to `onRow`. */
export class DistinctRows implements WalkSink {
  readonly #seen = new IdSet();
  readonly #onRow: (row: ArchiveRow) => undefined | Promise<void>;

  constructor(onRow: (row: ArchiveRow) => undefined | Promise<void>) {
    this.#onRow = onRow;
  }

  get distinct(): number {
    return this.#seen.size;
  }

  add(record: KeyedRecord): undefined | Promise<void> {
    return this.#seen.add(record.id) ? this.#onRow(record.row()) : undefined;
  }
}

export interface WalkResult {
  day: Day;
  /** How many distinct valid records the sink holds after the walk. */
  distinct: number;
  /** Distinct invalid items by raw id. */
  rejected: Map<string, RejectedRecord>;
  /** Highest `totalElements` the API reported during the walk. */
  totalElements: number;
  passes: number;
  pages: number;
  /** The larger of `totalElements` and the rows the short last page implied, minus items collected, when positive. */
  shortfall: number;
  /** The walk proved the day complete (see `walkDay`). */
  complete: boolean;
  /** The Page numbers were caught lying: rows beyond the reported total, or a total that moved. */
  unreliableTotals: boolean;
  /** The deadline cut the walk short; what it holds is still worth committing. */
  interrupted: boolean;
  /** When interrupted: where the next run goes on (see `WalkOptions.resume`). */
  progress?: WalkProgress;
  /**
   * The server refused the day as outside its window (HTTP 400): the walk stopped and holds nothing
   * worth committing; the run decides whether the day became a gap.
   */
  outsideWindow?: ArchiverError;
  /**
   * A page the walk could not take (its body past the client's cap: `BODY_TOO_LARGE`): the walk took the
   * pass's other pages and then ended, unproven. What it holds is worth committing; the run records the
   * day failed with this error.
   */
  badPage?: ArchiverError;
}

/** Why a walk stopped before its rules ended it, as a value. */
type Stop = { kind: 'interrupted' } | { kind: 'outside-window'; error: ArchiverError };

/** The pass under way: where it began, what it planned, the lengths of its pages and those absorbed. */
interface Pass {
  size: number;
  planned: number;
  /** First page this pass asks for (0, or where a resumed pass goes on). */
  start: number;
  /** Rows the walk held when the pass began. */
  passStart: number;
  /** The highest total of the passes before this one (a resumed pass: of the whole walk so far). */
  totalBefore: number;
  /** The totals this pass's pages answered. */
  totals: Set<number>;
  /** Items of each page fetched in this pass, by number. */
  lengths: Map<number, number>;
  absorbed: Set<number>;
  /** 1 when the total fills its last page: the empty page after it is asked for with the others. */
  endAhead: number;
}

/**
 * Collects every record of one history day. Pages are unsorted offset pages whose order may change between
 * requests, and `totalElements` is a separate, possibly stale COUNT; so the Page numbers are only hints:
 * - a pass ends only at a page shorter than the echoed `size`, or empty (the one end signal the API gives);
 * - at the pass's end, `passVerdict` (the day's completeness rules, which the fan-out's finish step also
 *   judges by) says whether the day is complete, stalled, or the walk ends.
 * Passes repeat until it ends: with an order reshuffled on every request a pass sees each row with probability
 * about 1 − 1/e, so n rows need about ln(n) + 5 passes (17 for 100k). A spent budget ends the walk with
 * what it has (`interrupted`); a day the server refuses as outside its window ends it with `outsideWindow`;
 * a page refused as too large (`BODY_TOO_LARGE`) is left out, and the walk ends after that pass with
 * `badPage`, what it holds being worth committing.
 */
export async function walkDay(api: UpstreamApi, day: Day, options: WalkOptions): Promise<WalkResult> {
  const walk = new DayWalk(api, day, options);
  while (!walk.done) await walk.next();
  await options.sink.settled?.();
  return walk.result();
}

/**
 * One day's walk as an object that owns its state (`walkDay` runs it): `next()` walks one pass (going on
 * with a pass an earlier run began, first), `done` says whether the rules ended the walk, `result()` sums
 * it up. Between passes everything the rules read is a field: the totals seen, the rows the short pages
 * proved, the passes and pages so far, the stall count and why the walk stopped.
 */
export class DayWalk {
  readonly #api: UpstreamApi;
  readonly #day: Day;
  readonly #options: WalkOptions;
  readonly #rejected = new Map<string, RejectedRecord>();
  readonly #totals: Set<number>;
  /** Rows the server really had, by offset arithmetic on a pass's short last page: `last * size + length`. */
  #observed: number;
  #pages: number;
  #passes: number;
  #stalled: number;
  /** Passes in a row that added nothing (`BARREN_PASSES`). */
  #barren: number;
  /** Whether the next pass counts what it serves (`ServedIds`): the last added nothing, short of the proven rows. */
  #countNext = false;
  /** What this pass serves, when it is counted. */
  #served: ServedIds | undefined;
  /** The rows served twice in every pass of the current stall streak (`passVerdict`). */
  #repeated: ReadonlyMap<string, number> | undefined;
  #complete = false;
  /** An open day's walk that holds every row that existed when its last pass began (`passVerdict`). */
  #caughtUp = false;
  #stop: Stop | undefined;
  /** The first page of the walk refused as too large (the walk ends after its pass; see `badPage`). */
  #badPage: ArchiverError | undefined;
  /** The earlier run's pass to go on with, until the first `next()` takes it. */
  #resume: WalkProgress | undefined;
  #pass: Pass = emptyPass(0);
  /** Pages the pass before planned (whether page 1 is worth guessing). */
  #lastPlanned = 0;
  /** At most `concurrency` requests in flight, whichever page they are for (see the port's gate). */
  readonly #requests: Limiter;
  readonly #absorbRows: (page: HistoryPage, served?: ServedIds) => Promise<void>;
  readonly #requestOptions: { signal?: AbortSignal };

  constructor(api: UpstreamApi, day: Day, options: WalkOptions) {
    this.#api = api;
    this.#day = day;
    this.#options = options;
    const resume = options.resume;
    this.#totals = new Set(resume?.totals ?? []);
    this.#observed = resume?.observed ?? 0;
    this.#pages = resume?.pages ?? 0;
    // A resumed pass is counted once: it goes on, it does not start again.
    this.#passes = resume ? resume.passes - 1 : 0;
    this.#stalled = resume?.stalled ?? 0;
    this.#barren = resume?.barren ?? 0;
    this.#resume = resume !== undefined && resume.nextPage > 0 ? resume : undefined;
    this.#requests = new Limiter(options.concurrency);
    this.#absorbRows = pageAbsorber(options, this.#rejected);
    const signal = options.budget?.signal();
    this.#requestOptions = signal ? { signal } : {};
  }

  /**
   * Whether the walk has ended: proven complete, stopped (deadline, window), a page refused as too large,
   * stalled, or out of passes.
   */
  get done(): boolean {
    return (
      this.#stop !== undefined ||
      this.#badPage !== undefined ||
      walkEnds({
        complete: this.#complete,
        caughtUp: this.#caughtUp,
        pass: this.#passes,
        stalled: this.#stalled,
        barren: this.#barren,
        maxPasses: this.#options.maxPasses,
      })
    );
  }

  /** Walks one pass (to its short page, or until the walk stops) and applies the completeness rules. */
  async next(): Promise<void> {
    if (this.done) return;
    this.#passes++;
    const begun = this.#resume ? this.#goOn(this.#resume) : await this.#begin();
    this.#resume = undefined;
    if (!begun) return;
    this.#lastPlanned = this.#pass.planned;
    await this.#fetchPlanned();
    if (this.#stop) return;
    const last = await this.#fetchPastPlanned();
    if (this.#stop || last === undefined) return;
    await this.#options.sink.settled?.();
    this.#judge();
  }

  /**
   * What the walk holds and proved; once stopped by the deadline, where the next run goes on. Read once
   * the sink has settled (`walkDay` waits for it).
   */
  result(): WalkResult {
    const stop = this.#stop;
    const interrupted = stop?.kind === 'interrupted';
    const complete = stop || this.#badPage ? false : this.#complete;
    const pass = this.#pass;
    let nextPage = 0;
    while (pass.absorbed.has(nextPage)) nextPage++;
    return {
      day: this.#day,
      distinct: this.#options.sink.distinct,
      rejected: this.#rejected,
      totalElements: this.#total,
      passes: this.#passes,
      pages: this.#pages,
      shortfall: shortfallOf(this.#total, this.#observed, this.#collected),
      complete,
      unreliableTotals: this.#unreliableTotals,
      interrupted,
      ...(stop?.kind === 'outside-window' ? { outsideWindow: stop.error } : {}),
      ...(this.#badPage ? { badPage: this.#badPage } : {}),
      ...(interrupted
        ? {
            progress: {
              passes: Math.max(this.#passes, 1),
              nextPage,
              size: pass.size,
              planned: pass.planned,
              totals: [...this.#totals],
              observed: this.#observed,
              stalled: this.#stalled,
              barren: this.#barren,
              passStart: pass.passStart,
              pages: this.#pages,
            },
          }
        : {}),
    };
  }

  get #total(): number {
    return Math.max(0, ...this.#totals);
  }

  get #collected(): number {
    return this.#options.sink.distinct + this.#rejected.size;
  }

  get #unreliableTotals(): boolean {
    return totalsUnreliable(this.#totals, this.#collected);
  }

  /** Goes on with the pass an earlier run began: its pages before `nextPage` are in the sink. */
  #goOn(resume: WalkProgress): boolean {
    const { size, planned, nextPage: start } = resume;
    this.#pass = { ...emptyPass(resume.passStart, Math.max(0, ...resume.totals)), size, planned, start };
    for (let n = 0; n < start; n++) this.#pass.absorbed.add(n);
    // Past the planned pages, the earlier run went on only because the page before was full.
    if (start > planned - 1) this.#pass.lengths.set(start - 1, size);
    return true;
  }

  /**
   * Begins a fresh pass with page 0 (and page 1 beside it when the day likely holds more than one page:
   * a round trip less a day; the guess costs one request when wrong, within the walk's "at most
   * totalPages + 1" on a stable server). False when the walk stopped before page 0 arrived.
   */
  async #begin(): Promise<boolean> {
    const options = this.#options;
    // What the pass adds is measured from the rows the sink holds, earlier runs' included.
    await options.sink.settled?.();
    this.#pass = emptyPass(this.#collected, this.#total);
    this.#served = this.#countNext ? new ServedIds(this.#collected) : undefined;
    const guessed = morePagesLikely(this.#passes, this.#lastPlanned, options);
    const ahead = guessed
      ? this.#requests.runGated((gate) => this.#fetchPage(1, options.pageSize, gate))
      : undefined;
    ahead?.catch(() => undefined);
    // The walk never leaves a request of its own in flight: the guess is settled before any way out.
    const settleAhead = async () => void (await ahead?.catch(() => undefined));
    let first: HistoryPage | undefined;
    try {
      first = await this.#requests.runGated((gate) => this.#fetchPage(0, options.pageSize, gate));
    } catch (error) {
      await settleAhead();
      throw error;
    }
    if (!first) {
      // Page 0 refused as too large: page 1, asked beside it, still brings its rows.
      const second = this.#badPage ? await ahead?.catch(() => undefined) : undefined;
      await settleAhead();
      if (second) await this.#absorb(1, second);
      return false;
    }
    // The server may cap the page size silently: the size it echoes is the truth.
    const size = first.size > 0 ? first.size : Math.max(itemsOf(first), 1);
    const cap = pageCap(options.maxPagesPerDay, size);
    if (first.totalPages > cap) {
      await settleAhead();
      throw pageLimit(this.#day, first.totalPages, size, cap);
    }
    if (this.#passes === 1) options.sink.expect?.(this.#day, first.totalElements);
    const planned = Math.max(1, first.totalPages, Math.ceil(first.totalElements / size));
    // A total that is a whole number of pages ends on a full page: the empty page after it, which
    // proves the end, is asked for with the others instead of after them.
    const endAhead = first.totalElements > 0 && first.totalElements === planned * size ? 1 : 0;
    this.#pass = { ...this.#pass, size, planned, endAhead };
    this.#pass.lengths.set(0, itemsOf(first));
    this.#fetched.set(0, Promise.resolve(first));
    // The guessed page 1 counts only if the server echoes the size page 0 echoed (a capped size is the
    // size both pages were cut at); else it is asked again at that size.
    if (ahead) {
      this.#fetched.set(
        1,
        ahead.then((page) =>
          page === undefined || page.size === size
            ? page
            : this.#requests.runGated((gate) => this.#fetchPage(1, size, gate)),
        ),
      );
    }
    return true;
  }

  /** Pages already asked for (page 0 of the pass, a page guessed ahead), by number. */
  readonly #fetched = new Map<number, Promise<HistoryPage | undefined>>();

  /**
   * The pass's planned pages. Requests run ahead of absorbing: `concurrency` of them in flight (the load the
   * server sees), and as many fetched pages again may wait for (or be in) `absorb`, so a page's CPU work
   * (validation, ids, encoding) hides under the latency of the next pages instead of adding to it.
   */
  async #fetchPlanned(): Promise<void> {
    const { options } = { options: this.#options };
    const pass = this.#pass;
    const to = Math.min(
      Math.max(pass.planned + pass.endAhead, this.#fetched.has(1) ? 2 : 0),
      pageCap(options.maxPagesPerDay, pass.size),
    );
    await mapLimit(
      Array.from({ length: Math.max(0, to - pass.start) }, (_, i) => i + pass.start),
      PAGES_HELD_PER_REQUEST * options.concurrency,
      async (n) => {
        const prefetched = this.#fetched.get(n);
        this.#fetched.delete(n);
        const page = prefetched
          ? await prefetched
          : this.#stop
            ? undefined
            : await this.#requests.runGated((gate) => this.#fetchPage(n, pass.size, gate));
        if (page) await this.#absorb(n, page);
      },
    ).finally(() => {
      // A page guessed ahead that the pass never reached (a failure stopped it) is still awaited.
      for (const pending of this.#fetched.values()) pending.catch(() => undefined);
      this.#fetched.clear();
    });
  }

  /**
   * Past the planned pages, goes on one page at a time until a short or empty page (a stale total must
   * not end the walk). The pass's last page, or undefined when the walk stopped.
   */
  async #fetchPastPlanned(): Promise<number | undefined> {
    const pass = this.#pass;
    let last = Math.max(pass.planned - 1, pass.start - 1);
    while ((pass.lengths.get(last) ?? 0) >= pass.size) {
      last++;
      const cap = pageCap(this.#options.maxPagesPerDay, pass.size);
      if (last >= cap) throw pageLimit(this.#day, last + 1, pass.size, cap);
      if (pass.lengths.has(last)) continue;
      const page = await this.#fetchPage(last, pass.size);
      if (!page) return undefined;
      await this.#absorb(last, page);
    }
    return last;
  }

  /** The rules at the end of a pass (`passVerdict`): what the short page proved, a stall, completeness. */
  #judge(): void {
    const pass = this.#pass;
    const verdict = passVerdict({
      totals: this.#totals,
      passTotals: pass.totals,
      totalBefore: pass.totalBefore,
      open: this.#options.open ?? false,
      observedBefore: this.#observed,
      shortPages: [...pass.lengths].map(([page, length]) => ({ page, length })),
      size: pass.size,
      collected: this.#collected,
      passStart: pass.passStart,
      pass: this.#passes,
      stalledBefore: this.#stalled,
      barrenBefore: this.#barren,
      maxPasses: this.#options.maxPasses,
      ...(this.#served ? { served: this.#served } : {}),
      ...(this.#repeated ? { repeatedBefore: this.#repeated } : {}),
    });
    this.#observed = verdict.observed;
    this.#stalled = verdict.stalled;
    this.#barren = verdict.barren;
    this.#complete = verdict.complete;
    this.#repeated = verdict.repeated;
    // Only a walk short of the rows its pages prove, after a pass that added nothing, counts its next pass.
    this.#countNext = verdict.added === 0 && this.#collected < verdict.observed;
    this.#served = undefined;
    this.#caughtUp = verdict.caughtUp;
  }

  async #absorb(n: number, page: HistoryPage): Promise<void> {
    this.#pass.lengths.set(n, itemsOf(page));
    this.#pages++;
    this.#totals.add(page.totalElements);
    this.#pass.totals.add(page.totalElements);
    await this.#absorbRows(page, this.#served);
    this.#pass.absorbed.add(n);
  }

  /**
   * One page, or nothing once the walk has stopped: no page is asked for once the budget is spent, and the
   * port's two ways of saying "no more" (its request aborted by the budget: DEADLINE; the day refused:
   * OUTSIDE_WINDOW) become the walk's stop value right here, where the request is made.
   */
  async #fetchPage(n: number, size: number, gate?: RequestGate): Promise<HistoryPage | undefined> {
    if (this.#stop) return undefined;
    if (this.#options.budget?.spent()) {
      this.#stop = { kind: 'interrupted' };
      return undefined;
    }
    const opts = this.#requestOptions;
    try {
      return await this.#api.historyPage(this.#day, this.#day, n, size, gate ? { ...opts, gate } : opts);
    } catch (error) {
      if (ArchiverError.is(error, 'DEADLINE')) this.#stop ??= { kind: 'interrupted' };
      else if (ArchiverError.is(error, 'OUTSIDE_WINDOW')) this.#stop ??= { kind: 'outside-window', error };
      // A page too large to take is left out: the pass goes on with its other pages, then the walk ends.
      else if (ArchiverError.is(error, 'BODY_TOO_LARGE')) this.#badPage ??= error;
      else throw error;
      return undefined;
    }
  }
}

function emptyPass(passStart: number, totalBefore = 0): Pass {
  return {
    size: 0,
    planned: 0,
    start: 0,
    passStart,
    totalBefore,
    totals: new Set(),
    lengths: new Map(),
    absorbed: new Set(),
    endAhead: 0,
  };
}

const itemsOf = (page: HistoryPage): number => page.content.length + page.rejected.length;

/**
 * Whether page 1 is worth asking for beside page 0: with room for two requests, on a later pass when the
 * pass before planned more than one page, and on a first pass unless the day's last scan fit in one page
 * (a day never scanned is guessed to be bigger: that is where a backfill spends its time).
 */
function morePagesLikely(
  passes: number,
  lastPlanned: number,
  options: Pick<WalkOptions, 'concurrency' | 'expectedTotal' | 'pageSize'>,
): boolean {
  if (options.concurrency < 2) return false;
  if (passes > 1) return lastPlanned > 1;
  return options.expectedTotal === undefined || options.expectedTotal > options.pageSize;
}

/**
 * The pages a walk asks for before it has any answer (each at `pageSize`): page 0, and page 1 beside it
 * when the day likely holds more; for a walk that resumes an earlier run's pass, see
 * {@link resumedPassPages}. What a run may ask for ahead of the walk (`PrefetchedPages`), so the walk
 * finds them under way.
 */
export function firstPassPages(
  options: Pick<WalkOptions, 'concurrency' | 'expectedTotal' | 'pageSize' | 'resume'>,
): number[] {
  if (options.resume !== undefined && options.resume.nextPage > 0) return [];
  return morePagesLikely(1, 0, options) ? [0, 1] : [0];
}

/**
 * The pages a walk that goes on with an earlier run's pass asks for first, each at the pass's echoed size
 * (`resume.size`): its next `concurrency` planned pages from `nextPage`; past the planned pages, `nextPage`
 * alone (the walk then goes one page at a time); none for a pass not begun (the walk begins it afresh)
 * and none at or past `maxPagesPerDay`. Sent ahead of the walk (`PrefetchedPages`), they let a resumed
 * run's first round trip hide under its preflight and lease, as a fresh walk's page 0 does.
 */
export function resumedPassPages(
  resume: WalkProgress,
  options: Pick<WalkOptions, 'concurrency' | 'maxPagesPerDay'>,
): number[] {
  const { nextPage, planned } = resume;
  const cap = pageCap(options.maxPagesPerDay, resume.size);
  if (nextPage <= 0 || nextPage >= cap) return [];
  if (nextPage >= planned) return [nextPage];
  const end = Math.min(planned, nextPage + Math.max(1, options.concurrency), cap);
  return Array.from({ length: end - nextPage }, (_, i) => nextPage + i);
}

/**
 * Rows a run may send ahead of a resumed walk (`resumedPassAhead`): 50 pages of 100 rows, two of 2,000. A
 * resumed run takes its lease and plans for about 0.4–0.5 s after its first request: at 40 ms a page and 2
 * in flight, 2,000 rows ahead ran out at 0.4 s, and the walk's requests paused 56–74 ms there until the walk
 * sent its own (bench/PROFILE.md). As many as a resumed walk keeps waiting for its earlier ids.
 */
export const RESUMED_ROWS_AHEAD = 5_000;

/**
 * The pages a run sends ahead of a walk that goes on with an earlier run's pass, in order, `concurrency`
 * at a time (`PrefetchedPages.prefetchPass`): {@link resumedPassPages}, then the next planned pages, up to
 * {@link RESUMED_ROWS_AHEAD} rows (never fewer pages than `concurrency`), so that the requests go on while
 * the run prepares the walk. Past the planned pages, `nextPage` alone, as the walk goes one at a time.
 */
export function resumedPassAhead(
  resume: WalkProgress,
  options: Pick<WalkOptions, 'concurrency' | 'maxPagesPerDay'>,
): number[] {
  const first = resumedPassPages(resume, options);
  const start = first[0];
  if (start === undefined || start >= resume.planned) return first;
  const most = Math.max(options.concurrency, Math.floor(RESUMED_ROWS_AHEAD / Math.max(1, resume.size)));
  const end = Math.min(resume.planned, pageCap(options.maxPagesPerDay, resume.size), start + most);
  return Array.from({ length: Math.max(first.length, end - start) }, (_, i) => start + i);
}

import type { Day } from '../clock/day.ts';
import type { DeadlineBudget } from '../clock/deadlineBudget.ts';
import { Limiter } from '../concurrency/limiter.ts';
import { mapLimit } from '../concurrency/mapLimit.ts';
import { DEFAULT_MAX_PASSES, STALLED_PASSES } from '../config/walkLimits.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import { IdSet } from '../ids/idSet.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import type { KeyedRecord, KeyedResult } from '../records/keyedRecord.ts';
import type { HistoryPage, HistoryRecord, RejectedRecord } from '../records/schemas.ts';
import type { WalkProgress } from '../state/stateStore.ts';
import type { RequestGate, UpstreamApi } from '../upstream/upstreamApi.ts';
import { pageAbsorber } from './pageAbsorber.ts';

export type { WalkProgress };
/** The walk's limits live with the config that documents them (lib/config/walkLimits.ts). */
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
  /** Hard cap on pages fetched in one pass: an absurd `totalPages` or a server that never ends fails the day. */
  maxPagesPerDay: number;
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
}

/** Why a walk stopped before its rules ended it, as a value. */
type Stop = { kind: 'interrupted' } | { kind: 'outside-window'; error: ArchiverError };

/**
 * Collects every record of one history day. Pages are unsorted offset pages whose order may change between
 * requests, and `totalElements` is a separate, possibly stale COUNT; so the Page numbers are only hints:
 * - a pass ends only at a page shorter than the echoed `size`, or empty (the one end signal the API gives);
 * - the day is complete when a pass ended so and the union reached both the total and the row count the
 *   short page implies (`last page * size + its length`), and, once the numbers were caught lying (rows
 *   beyond the total, a total that changed), only when a whole pass then added nothing new.
 * Passes repeat until complete, until {@link STALLED_PASSES} passes in a row added nothing while only
 * the total says more rows exist, or until `maxPasses` is spent: with an order reshuffled on every request a pass sees each row with probability
 * about 1 − 1/e, so n rows need about ln(n) + 5 passes (17 for 100k). A spent budget ends the walk with
 * what it has (`interrupted`); a day the server refuses as outside its window ends it with `outsideWindow`.
 */
export async function walkDay(api: UpstreamApi, day: Day, options: WalkOptions): Promise<WalkResult> {
  const sink = options.sink;
  const rejected = new Map<string, RejectedRecord>();
  const resume = options.resume;
  const totals = new Set<number>(resume?.totals ?? []);
  let total = Math.max(0, ...totals);
  /** Rows the server really had, by offset arithmetic on a pass's short last page: `last * size + length`. */
  let observed = resume?.observed ?? 0;
  let pages = resume?.pages ?? 0;
  // A resumed pass is counted once: it goes on, it does not start again.
  let passes = resume ? resume.passes - 1 : 0;
  let stalled = resume?.stalled ?? 0;
  /** The current pass, for the progress an interruption stores. */
  let current = { size: 0, planned: 0, start: 0, passStart: 0, absorbed: new Set<number>() };
  let complete = false;
  let stop: Stop | undefined;
  const budget = options.budget;
  const signal = budget?.signal();
  const opts = signal ? { signal } : {};
  const collected = () => sink.distinct + rejected.size;
  /**
   * One page, or nothing once the walk has stopped: no page is asked for once the budget is spent, and the
   * port's two ways of saying "no more" (its request aborted by the budget: DEADLINE; the day refused:
   * OUTSIDE_WINDOW) become the walk's stop value right here, where the request is made.
   */
  const fetchPage = async (n: number, size: number, gate?: RequestGate): Promise<HistoryPage | undefined> => {
    if (stop) return undefined;
    if (budget?.spent()) {
      stop = { kind: 'interrupted' };
      return undefined;
    }
    try {
      return await api.historyPage(day, day, n, size, gate ? { ...opts, gate } : opts);
    } catch (error) {
      if (ArchiverError.is(error, 'DEADLINE')) stop ??= { kind: 'interrupted' };
      else if (ArchiverError.is(error, 'OUTSIDE_WINDOW')) stop ??= { kind: 'outside-window', error };
      else throw error;
      return undefined;
    }
  };

  const absorbRows = pageAbsorber(options, rejected);
  const absorb = async (page: HistoryPage): Promise<void> => {
    pages++;
    totals.add(page.totalElements);
    total = Math.max(total, page.totalElements);
    await absorbRows(page);
  };
  const itemsOf = (page: HistoryPage) => page.content.length + page.rejected.length;

  {
    let resuming = resume !== undefined && resume.nextPage > 0;
    /**
     * At most `concurrency` requests in flight, whichever page they are for: a slot is held while a
     * request is sent and its body read, not while the body is parsed and validated (the port's gate).
     */
    const requests = new Limiter(options.concurrency);
    /** Pages already asked for (page 0 of the pass, a page guessed ahead), by number. */
    const fetched = new Map<number, Promise<HistoryPage | undefined>>();
    let lastPlanned = 0;
    while (!stop && passes < options.maxPasses && !complete && stalled < STALLED_PASSES) {
      passes++;
      let before = collected();
      let size: number;
      let planned: number;
      let start = 1;
      let endAhead = 0;
      const lengths = new Map<number, number>();
      if (resuming && resume) {
        // Go on with the pass the earlier run began: its pages before `nextPage` are in the sink.
        resuming = false;
        ({ size, planned } = resume);
        before = resume.passStart;
        start = resume.nextPage;
        current = { size, planned, start, passStart: before, absorbed: new Set() };
        for (let n = 0; n < start; n++) current.absorbed.add(n);
        // Past the planned pages, the earlier run went on only because the page before was full.
        if (start > planned - 1) lengths.set(start - 1, size);
      } else {
        current = { size: 0, planned: 0, start: 0, passStart: before, absorbed: new Set() };
        // Page 1 goes out beside page 0 (under the same limit of requests in flight) when the day likely
        // holds more than one page: a round trip less a day. The guess costs one request when wrong,
        // within the walk's "at most totalPages + 1" on a stable server.
        const guessed = morePagesLikely(passes, lastPlanned, options);
        const ahead = guessed ? requests.runGated((gate) => fetchPage(1, options.pageSize, gate)) : undefined;
        ahead?.catch(() => undefined);
        // The walk never leaves a request of its own in flight: the guess is settled before any way out.
        const settleAhead = async () => void (await ahead?.catch(() => undefined));
        let first: HistoryPage | undefined;
        try {
          first = await requests.runGated((gate) => fetchPage(0, options.pageSize, gate));
        } catch (error) {
          await settleAhead();
          throw error;
        }
        if (!first) {
          await settleAhead();
          break;
        }
        if (first.totalPages > options.maxPagesPerDay) {
          await settleAhead();
          throw pageLimit(day, first.totalPages, options);
        }
        start = 0;
        if (passes === 1) sink.expect?.(day, first.totalElements);
        // The server may cap the page size silently: the size it echoes is the truth.
        size = first.size > 0 ? first.size : Math.max(itemsOf(first), 1);
        planned = Math.max(1, first.totalPages, Math.ceil(first.totalElements / size));
        lengths.set(0, itemsOf(first));
        // A total that is a whole number of pages ends on a full page: the empty page after it, which
        // proves the end, is asked for with the others instead of after them.
        if (first.totalElements > 0 && first.totalElements === planned * size) endAhead = 1;
        current = { size, planned, start: 0, passStart: before, absorbed: new Set() };
        fetched.set(0, Promise.resolve(first));
        // The guessed page 1 counts only if the server echoes the size page 0 echoed (a capped size is the
        // size both pages were cut at); else it is asked again at that size.
        if (ahead) {
          fetched.set(
            1,
            ahead.then((page) =>
              page === undefined || page.size === size
                ? page
                : requests.runGated((gate) => fetchPage(1, size, gate)),
            ),
          );
        }
      }
      lastPlanned = planned;
      // Requests run ahead of absorbing: `concurrency` of them in flight (the load the server sees), and
      // as many fetched pages again may wait for (or be in) `absorb`, so a page's CPU work (validation,
      // ids, encoding) hides under the latency of the next pages instead of adding to it. Page 0 of a
      // fresh pass is absorbed while the next pages are already on their way.
      const to = Math.min(Math.max(planned + endAhead, fetched.has(1) ? 2 : 0), options.maxPagesPerDay);
      await mapLimit(
        Array.from({ length: Math.max(0, to - start) }, (_, i) => i + start),
        PAGES_HELD_PER_REQUEST * options.concurrency,
        async (n) => {
          const prefetched = fetched.get(n);
          fetched.delete(n);
          const page = prefetched
            ? await prefetched
            : stop
              ? undefined
              : await requests.runGated((gate) => fetchPage(n, size, gate));
          if (!page) return;
          lengths.set(n, itemsOf(page));
          await absorb(page);
          current.absorbed.add(n);
        },
      ).finally(() => {
        // A page guessed ahead that the pass never reached (a failure stopped it) is still awaited.
        for (const pending of fetched.values()) pending.catch(() => undefined);
        fetched.clear();
      });
      // Past the planned pages, go on until a short or empty page: a stale total must not end the walk.
      if (stop) break;
      let last = Math.max(planned - 1, start - 1);
      while ((lengths.get(last) ?? 0) >= size) {
        last++;
        if (last >= options.maxPagesPerDay) throw pageLimit(day, last + 1, options);
        if (lengths.has(last)) continue;
        const page = await fetchPage(last, size);
        if (!page) break;
        lengths.set(last, itemsOf(page));
        await absorb(page);
        current.absorbed.add(last);
      }
      if (stop) break;
      observed = Math.max(observed, last * size + (lengths.get(last) ?? 0));
      const addedThisPass = collected() - before;
      // Rows short of what a short page proved the server holds are never given up on (only maxPasses
      // ends that walk); only a count above the content itself can stall the walk.
      stalled = addedThisPass === 0 && collected() >= observed ? stalled + 1 : 0;
      const unreliable = unreliableTotals();
      complete =
        collected() >= Math.max(total, observed) && (!unreliable || (passes > 1 && addedThisPass === 0));
    }
  }
  const interrupted = stop?.kind === 'interrupted';
  if (stop) complete = false;
  let nextPage = 0;
  while (current.absorbed.has(nextPage)) nextPage++;

  function unreliableTotals(): boolean {
    return totals.size > 1 || collected() > total;
  }

  return {
    day,
    distinct: sink.distinct,
    rejected,
    totalElements: total,
    passes,
    pages,
    shortfall: Math.max(0, Math.max(total, observed) - collected()),
    complete,
    unreliableTotals: unreliableTotals(),
    interrupted,
    ...(stop?.kind === 'outside-window' ? { outsideWindow: stop.error } : {}),
    ...(interrupted
      ? {
          progress: {
            passes: Math.max(passes, 1),
            nextPage,
            size: current.size,
            planned: current.planned,
            totals: [...totals],
            observed,
            stalled,
            passStart: current.passStart,
            pages,
          },
        }
      : {}),
  };
}

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
 * when the day likely holds more; none known ahead when the walk resumes an earlier run's pass. What a
 * run may ask for ahead of the walk (`PrefetchedPages`), so the walk finds them under way.
 */
export function firstPassPages(
  options: Pick<WalkOptions, 'concurrency' | 'expectedTotal' | 'pageSize' | 'resume'>,
): number[] {
  if (options.resume !== undefined && options.resume.nextPage > 0) return [];
  return morePagesLikely(1, 0, options) ? [0, 1] : [0];
}

function pageLimit(day: Day, pages: number, options: WalkOptions): ArchiverError {
  return new ArchiverError(
    'PAGE_LIMIT',
    `history day ${day} needs ${pages} pages of ${options.pageSize}, more than MAX_PAGES_PER_DAY=${options.maxPagesPerDay}; ` +
      'raise the setting if the day is really that large',
    { details: { day, pages, maxPagesPerDay: options.maxPagesPerDay } },
  );
}

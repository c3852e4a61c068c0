import { type Day, Limiter } from '../../foundation/index.ts';
import type { ActiveSession, HistoryPage } from '../records/schemas.ts';
import type { RequestGate, RequestOptions, UpstreamApi } from './upstreamApi.ts';

/**
 * The API, with history pages asked for ahead of the walk that will ask for them: a request for a page
 * under way (same day, page and size) is answered by it, once; every other request goes to the API it
 * wraps. A run sends the first pages of its first day beside its preflight, so that the round trips of
 * the preflight and of the first pages overlap instead of adding up.
 *
 * A page asked for ahead is in flight from then on: a walk that takes it holds its request slot until it
 * arrives (it never bypasses the walk's limit on requests in flight), and an error it ends with is the
 * walk's own, as if the walk had sent it. One never taken is aborted and dropped by `discard`.
 */
export class PrefetchedPages implements UpstreamApi {
  readonly #api: UpstreamApi;
  readonly #ahead = new Map<string, { answer: Promise<HistoryPage>; abort: AbortController }>();
  /**
   * Days a walk has asked a page of that was not sent ahead: it has caught up with a pass sent ahead,
   * which stops there; the walk asks for its own pages from then on.
   */
  readonly #caughtUp = new Set<Day>();
  #discarded = false;

  constructor(api: UpstreamApi) {
    this.#api = api;
  }

  /** Sends the request for page `page` of `day` now; a later `historyPage` for it takes its answer. */
  prefetch(day: Day, page: number, size: number, options: RequestOptions = {}): void {
    const key = keyOf(day, page, size);
    if (this.#ahead.has(key)) return;
    // Its own abort (for `discard`), besides the caller's signal (the run's deadline).
    const abort = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
    const answer = this.#api.historyPage(day, day, page, size, { ...options, signal });
    // Settled by whoever takes it, or by `discard`: never an unhandled rejection.
    answer.catch(() => undefined);
    this.#ahead.set(key, { answer, abort });
  }

  /**
   * Sends `pages` of `day` ahead in their order, `inFlight` at a time: each page sends the next once its
   * exchange with the server ends (its body read, as the walk's own requests free their slot), before it is
   * parsed and checked, or once its answer arrives where the API has no exchange of its own to gate. So
   * the requests go on while the run prepares its walk (whose start-up work would otherwise hold up each
   * answer's parse, and the next request behind it), and while the walk takes the pages that arrived
   * meanwhile (it sends none of its own while it takes them, so a pass that stopped at the walk's first
   * page left the server idle until the walk had taken them all). It stops once the walk asks for a page
   * of `day` that was not sent ahead (it has caught up: from then on it sends its own, within its own
   * limit, and no page is asked for twice), at `discard`, at the caller's signal, at a page that failed,
   * or once `sendWhile` says no (the run's time the pages may take). Never more than `inFlight` exchanges
   * of them at once, retries included: the load the server sees is the walk's.
   */
  prefetchPass(
    day: Day,
    pages: readonly number[],
    size: number,
    inFlight: number,
    options: RequestOptions & { sendWhile?: () => boolean } = {},
  ): void {
    const { sendWhile, ...request } = options;
    const slots = new Limiter(Math.max(1, inFlight));
    let next = 0;
    let failed = false;
    const send = (): void => {
      if (failed || this.#caughtUp.has(day) || this.#discarded || options.signal?.aborted) return;
      if (next >= inFlight && sendWhile && !sendWhile()) return;
      const page = pages[next++];
      if (page === undefined) return;
      // Each page sends one more, at the first of: the end of its first exchange, its answer.
      let sentNext = false;
      const sendNext = (): void => {
        if (sentNext) return;
        sentNext = true;
        send();
      };
      const gate: RequestGate = {
        run: (exchange) => {
          const ran = slots.run(exchange);
          void ran.then(sendNext, () => undefined);
          return ran;
        },
      };
      this.prefetch(day, page, size, { ...request, gate });
      this.#ahead.get(keyOf(day, page, size))?.answer.then(sendNext, () => {
        failed = true;
      });
    };
    for (let i = 0; i < Math.max(1, inFlight); i++) send();
  }

  listActive(options?: RequestOptions): Promise<ActiveSession[]> {
    return this.#api.listActive(options);
  }

  /** A page sent ahead (same day, page and size), once; any other page from the API it wraps. */
  readonly historyPage: UpstreamApi['historyPage'] = (from, to, page, size, options) => {
    if (from === to) {
      const key = keyOf(from, page, size);
      const ahead = this.#ahead.get(key);
      if (ahead) {
        this.#ahead.delete(key);
        return ahead.answer;
      }
      this.#caughtUp.add(from);
    }
    return this.#api.historyPage(from, to, page, size, options);
  };

  /**
   * Aborts the pages no walk took (a request still retrying would otherwise hold a failed run up to its
   * retry budget), waits for them to settle and forgets them: their answers are of no use now. A page a
   * walk took is the walk's, whatever happens here.
   */
  async discard(): Promise<void> {
    this.#discarded = true;
    const left = [...this.#ahead.values()];
    this.#ahead.clear();
    for (const { abort } of left) abort.abort(new Error('not needed: the run went on without this page'));
    await Promise.allSettled(left.map((l) => l.answer));
  }
}

function keyOf(day: Day, page: number, size: number): string {
  return `${day}/${page}/${size}`;
}

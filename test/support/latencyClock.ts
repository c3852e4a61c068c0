import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import type { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { type DeadlineBudget, deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';

/**
 * Simulated time driven by the server's answers: each answer moves `clock` on by `latencyMs ÷ inFlight`
 * (the time one answer costs when `inFlight` requests overlap), and nothing else moves it. A run's budget
 * on this clock is spent after the same number of answers on any machine, however busy: counts of pages
 * per run are then facts a test can assert, while the requests still cross real HTTP with real latency.
 */
export class LatencyClock {
  readonly clock: ManualClock;
  readonly #step: number;
  #base: DeadlineBudget | undefined;
  #controller = new AbortController();
  /** History requests answered since the last `budget`. */
  answered = 0;

  constructor(clock: ManualClock, latencyMs: number, inFlight: number) {
    this.clock = clock;
    this.#step = latencyMs / inFlight;
  }

  /** The API, with every answer moving the clock (and aborting what is in flight once the budget is spent). */
  api(inner: UpstreamApi): UpstreamApi {
    return {
      listActive: async (o) => this.#answered(await inner.listActive(o)),
      historyPage: async (...args) => {
        const page = await inner.historyPage(...args);
        this.answered++;
        return this.#answered(page);
      },
    };
  }

  /** A run's budget of `maxRunMs` (less `reserveMs`) from now, on this clock: its abort follows this clock. */
  budget(maxRunMs: number, reserveMs: number): DeadlineBudget {
    const base = deadlineBudget(this.clock, new Date(this.clock.now().getTime() + maxRunMs), reserveMs);
    this.#base = base;
    this.#controller = new AbortController();
    this.answered = 0;
    const controller = this.#controller;
    return {
      endsAt: base.endsAt,
      reserveMs: base.reserveMs,
      get keepMs() {
        return base.keepMs;
      },
      get stopAt() {
        return base.stopAt;
      },
      spent: () => base.spent(),
      signal: () => controller.signal,
      startCommit: () => base.startCommit(),
    };
  }

  #answered<T>(value: T): T {
    this.clock.advance(this.#step);
    if (this.#base?.spent() && !this.#controller.signal.aborted)
      this.#controller.abort(new Error('deadline budget spent'));
    return value;
  }
}

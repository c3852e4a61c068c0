import type { Clock } from './clock.ts';

/** Longest timer Node keeps (a longer one fires at once): a budget further off than this is not armed. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The run's time, built once (from the Lambda's remaining time, or `--max-run-ms`) and handed down to
 * every loop that may outlast it: the day loop, each walk and its requests. One reserve
 * (`DEADLINE_RESERVE_MS`, default 60 s) is kept before the end: once inside it no new day starts, no
 * new page is asked for and requests in flight are aborted, and what the reserve leaves is for committing
 * what the walks hold, the digest, the lease and (in Lambda) flushing metrics. Being cut short is a
 * value (`interrupted`), never an exception. Time is read from the injected clock, so a fake clock
 * drives it in tests.
 */
export interface DeadlineBudget {
  /** The hard end (Lambda's timeout, the end of `--max-run-ms`); absent: no deadline. */
  readonly endsAt: Date | undefined;
  /** The configured reserve kept before `endsAt`. */
  readonly reserveMs: number;
  /**
   * What is kept before `endsAt` now: the reserve, or `COMMIT_MARGIN` times the longest commit of this
   * run (a commit still running counts with its time so far), whichever is larger. A run whose commits
   * are slower than its reserve then stops early enough to commit what it holds and still end by `endsAt`.
   */
  readonly keepMs: number;
  /** `endsAt` less `keepMs`: work stops here (absent: never). Moves earlier as slower commits are seen. */
  readonly stopAt: Date | undefined;
  /** True once no new work may start. */
  spent(): boolean;
  /** Aborts requests in flight when the budget is spent (on real time); none without a deadline. */
  signal(): AbortSignal | undefined;
  /** Marks one of the run's commits begun (on the budget's clock); call what it returns once it ends. */
  startCommit(): () => void;
}

/**
 * What is kept before the end, in commits: the one the cut leaves (no bigger than one the walk made while
 * fetching, see `PartitionDrafts`) and the writes after it (walk ids, day state, digest, META, lease).
 */
export const COMMIT_MARGIN = 1.5;

/** A budget ending at `endsAt` (none: unbounded), with `reserveMs` kept before it. */
export function deadlineBudget(clock: Clock, endsAt: Date | undefined, reserveMs: number): DeadlineBudget {
  let longestMs = 0;
  const running = new Set<{ at: number }>();
  const keep = () => {
    let ms = longestMs;
    const now = clock.now().getTime();
    for (const c of running) ms = Math.max(ms, now - c.at);
    return Math.max(reserveMs, COMMIT_MARGIN * ms);
  };
  const stopMs = () => (endsAt ? endsAt.getTime() - keep() : Number.POSITIVE_INFINITY);
  const left = () => stopMs() - clock.now().getTime();
  // One signal for the run, re-armed when the stop moves earlier.
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (c: AbortController) => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (c.signal.aborted) return;
    const ms = left();
    if (ms <= 0) c.abort(new Error('deadline budget spent'));
    else if (ms <= MAX_TIMER_MS) timer = setTimeout(() => arm(c), ms).unref();
  };
  return {
    endsAt,
    reserveMs,
    get keepMs() {
      return keep();
    },
    get stopAt() {
      return endsAt ? new Date(stopMs()) : undefined;
    },
    spent: () => left() <= 0,
    signal: () => {
      if (!endsAt) return undefined;
      if (!controller) controller = new AbortController();
      arm(controller);
      return controller.signal;
    },
    startCommit: () => {
      const commit = { at: clock.now().getTime() };
      running.add(commit);
      return () => {
        if (!running.delete(commit)) return;
        longestMs = Math.max(longestMs, clock.now().getTime() - commit.at);
        if (controller) arm(controller);
      };
    },
  };
}

/** The budget of a run that may take `remainingMs` from now (Lambda: `getRemainingTimeInMillis()`). */
export function budgetFromRemaining(
  clock: Clock,
  remainingMs: number | undefined,
  reserveMs: number,
): DeadlineBudget {
  const end = remainingMs === undefined ? undefined : new Date(clock.now().getTime() + remainingMs);
  return deadlineBudget(clock, end, reserveMs);
}

/** No deadline: never spent. */
export function unboundedBudget(clock: Clock): DeadlineBudget {
  return deadlineBudget(clock, undefined, 0);
}

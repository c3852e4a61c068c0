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
  /** The reserve kept before `endsAt`. */
  readonly reserveMs: number;
  /** `endsAt` minus the reserve: work stops here (absent: never). */
  readonly stopAt: Date | undefined;
  /** True once no new work may start. */
  spent(): boolean;
  /** Aborts requests in flight when the budget is spent (on real time); none without a deadline. */
  signal(): AbortSignal | undefined;
}

/** A budget ending at `endsAt` (none: unbounded), with `reserveMs` kept before it. */
export function deadlineBudget(clock: Clock, endsAt: Date | undefined, reserveMs: number): DeadlineBudget {
  const stopAt = endsAt ? new Date(endsAt.getTime() - reserveMs) : undefined;
  const left = () => (stopAt ? stopAt.getTime() - clock.now().getTime() : Number.POSITIVE_INFINITY);
  return {
    endsAt,
    reserveMs,
    stopAt,
    spent: () => left() <= 0,
    signal: () => {
      if (!stopAt) return undefined;
      const ms = left();
      if (ms <= 0) return AbortSignal.abort(new Error('deadline budget spent'));
      return ms > MAX_TIMER_MS ? undefined : AbortSignal.timeout(ms);
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

import { ArchiverError } from '../../foundation/index.ts';

/** Knobs of the upstream retry schedule. */
export interface RetryPolicyOptions {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  /** Cap of the first backoff window; each later window doubles. */
  baseDelayMs: number;
  /** No backoff window grows past this (a longer Retry-After is still honoured). */
  maxDelayMs: number;
  /** Total time allowed across all attempts and waits, measured from the first attempt. */
  budgetMs: number;
}

/** Long enough to ride out an upstream outage of tens of seconds, short enough for a Lambda run. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicyOptions> = Object.freeze({
  maxAttempts: 10,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  budgetMs: 120_000,
});

/**
 * Backoff strategy: exponential windows with full jitter, Retry-After honoured, all within a budget.
 * Pure apart from `random`, so tests drive it with a fake clock and a scripted random.
 */
export class RetryPolicy {
  readonly options: Readonly<RetryPolicyOptions>;
  readonly #random: () => number;

  constructor(options: Partial<RetryPolicyOptions> = {}, random: () => number = Math.random) {
    const merged = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(options) };
    for (const [name, value] of Object.entries(merged)) {
      if (!Number.isFinite(value) || value < 0)
        throw new ArchiverError('CONFIG_INVALID', `retry.${name} must be a finite number >= 0, got ${value}`);
    }
    if (merged.maxAttempts < 1)
      throw new ArchiverError('CONFIG_INVALID', `retry.maxAttempts must be >= 1, got ${merged.maxAttempts}`);
    this.options = Object.freeze(merged);
    this.#random = random;
  }

  /**
   * Wait before the attempt after failed attempt `attempt` (1-based): a uniform draw from
   * [0, min(maxDelay, base * 2^(attempt-1))) — full jitter spreads a fleet of clients apart —
   * but never shorter than the server's Retry-After.
   */
  delayFor(attempt: number, retryAfterMs?: number): number {
    const { baseDelayMs, maxDelayMs } = this.options;
    const window = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
    const r = Math.min(Math.max(this.#random(), 0), 1);
    const jittered = Math.floor(r * window);
    return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.ceil(retryAfterMs));
  }

  /**
   * Decides whether to retry after failed attempt `attempt`, `elapsedMs` into the budget.
   * Returns the wait in ms, or `undefined` to give up: attempts exhausted, budget spent, or a
   * Retry-After that would outlast the budget (waiting it out only to fail helps nobody).
   * A plain backoff is clipped to what is left of the budget.
   */
  next(attempt: number, elapsedMs: number, retryAfterMs?: number): number | undefined {
    const { maxAttempts, budgetMs } = this.options;
    if (attempt >= maxAttempts) return undefined;
    const remaining = budgetMs - Math.max(0, elapsedMs);
    if (remaining <= 0) return undefined;
    if (retryAfterMs !== undefined && retryAfterMs > remaining) return undefined;
    return Math.min(this.delayFor(attempt, retryAfterMs), remaining);
  }
}

const DELTA_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/;

/**
 * Parses an HTTP `Retry-After` value (delta-seconds or HTTP-date) into milliseconds from `now`.
 * A date in the past means "now" (0); anything unparseable is `undefined`, i.e. plain backoff.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const seconds = DELTA_SECONDS.exec(value);
  if (seconds?.[1] !== undefined) return Math.round(Number(seconds[1]) * 1000);
  // Date.parse accepts bare numbers as years; an HTTP-date always names a day or month.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Transport errors that mean "no server there": a name that does not resolve, or a refused connection. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS failure)',
  ECONNREFUSED: 'the connection was refused (nothing listens there)',
};

/**
 * Why a transport error code means the host is unreachable, or `undefined` when it does not. Until a
 * client has had one successful response such an error is a wrong base URL or no network, so it is
 * not retried (a typo must not cost the whole retry budget); later in a run it is a blip and retried.
 */
export function unreachableReason(code: unknown): string | undefined {
  return typeof code === 'string' ? UNREACHABLE[code] : undefined;
}

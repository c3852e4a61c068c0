/** Time kept back from Lambda's hard timeout for releasing the lease, closing clients and flushing metrics. */
export const DEADLINE_SAFETY_MARGIN_MS = 20_000;

/**
 * The instant the engine must have stopped by: Lambda kills the process at its timeout, so the run
 * aims to finish `marginMs` before it (the engine keeps its own reserve for the day in flight on top).
 */
export function lambdaDeadline(now: Date, remainingMs: number, marginMs = DEADLINE_SAFETY_MARGIN_MS): Date {
  return new Date(now.getTime() + Math.max(0, remainingMs - marginMs));
}

/** Tries of a call whose streamed body the SDK cannot replay (its own retry stops at the first failure). */
export const STREAM_ATTEMPTS = 4;

/** Network failures Node reports by code, which a new connection may not meet. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** S3's own names for an answer that says "try again". */
const TRANSIENT_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'SlowDown',
  'InternalError',
  'ServiceUnavailable',
  'Throttling',
  'ThrottlingException',
]);

/**
 * An S3 failure the same call may not meet again: a reset or timed-out connection (the SDK names
 * ECONNRESET, EPIPE and ETIMEDOUT `TimeoutError`), a body cut short, a 5xx, a 429 or S3's `SlowDown`.
 */
export function isTransientS3Error(error: unknown): boolean {
  const e = error as
    | { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } }
    | undefined;
  if (e === undefined || e === null) return false;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && (status === 429 || status >= 500)) return true;
  if (e.name !== undefined && TRANSIENT_NAMES.has(e.name)) return true;
  if (e.code !== undefined && NETWORK_CODES.has(e.code)) return true;
  // Node's own words for a connection that closed under a request or a response.
  return e.message === 'aborted' || e.message === 'socket hang up';
}

/** Waits before try `attempt + 1`: 100 ms doubling, jittered, at most 2 s. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.min(2_000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `call` again, from the start, after a transient S3 failure. For what the SDK's retry leaves out:
 * a request whose body is a stream (the SDK never replays one) and a response body read after `send`
 * returned. `call` must open its own stream each time and be safe to repeat (a PUT of the same bytes to
 * the same key, a GET).
 */
export async function retryS3Stream<T>(
  call: () => Promise<T>,
  retryable: (error: unknown) => boolean = isTransientS3Error,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= STREAM_ATTEMPTS || !retryable(error)) throw error;
      await backoff(attempt);
    }
  }
}

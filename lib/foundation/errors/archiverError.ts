/**
 * Stable error codes. Callers branch on `code`, never on message text.
 * `retryable` tells a caller whether the same call may succeed later.
 */
export const ERROR_CODES = {
  AUTH_REJECTED: { retryable: false },
  PLAN_REQUIRED: { retryable: false },
  OUTSIDE_WINDOW: { retryable: false },
  NOT_FOUND: { retryable: false },
  BAD_REQUEST: { retryable: false },
  UPSTREAM_UNAVAILABLE: { retryable: true },
  RATE_LIMITED: { retryable: true },
  SCHEMA_MISMATCH: { retryable: true },
  CONFIG_INVALID: { retryable: false },
  LEASE_HELD: { retryable: true },
  CONFLICT: { retryable: true },
  STORE_FAILED: { retryable: true },
  DEADLINE: { retryable: true },
  /** A partition's manifest lists a file that is in neither its staging nor its final place. */
  PARTITION_BROKEN: { retryable: false },
  /**
   * A 2xx response body longer than the client reads (`MAX_BODY_BYTES`): refused before it is parsed.
   * The walk takes the day's other pages, commits them, and the day is recorded failed with this code.
   */
  BODY_TOO_LARGE: { retryable: false },
  /** A day's paging exceeded the pages-per-day cap (an absurd `totalPages`, or a server that never ends). */
  PAGE_LIMIT: { retryable: false },
  /**
   * A day walked in ranges holds more ids than one fan-out finish step takes the union of in its memory
   * (`FINISH_MAX_IDS`): recorded as the day's failure, and the orchestration goes on.
   */
  DAY_TOO_BIG: { retryable: false },
  /** The SQL given to `query` failed in the engine (syntax, unknown table or column, a bad cast). */
  QUERY_FAILED: { retryable: false },
  /** A day left the API's window before it was sealed: recorded and logged (never thrown). */
  GAP: { retryable: false },
  /**
   * A staged file's bytes are not what its writer staged (the SHA-256 or size its manifest entry recorded):
   * it is not published, it leaves the manifest (its records are archived again while their day is in the
   * window), and the partition's other files and every other partition go on.
   */
  STAGED_FILE_CHANGED: { retryable: false },
  INTERNAL: { retryable: false },
} as const satisfies Record<string, { retryable: boolean }>;

export type ArchiverErrorCode = keyof typeof ERROR_CODES;

export interface ArchiverErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  /** HTTP status that led to the error, when there was one. */
  status?: number;
  details?: Record<string, unknown>;
}

/** The one error type of tunnel-archiver: a stable `code`, a human message, and the `cause`. */
export class ArchiverError extends Error {
  override readonly name = 'ArchiverError';
  readonly code: ArchiverErrorCode;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ArchiverErrorCode, message: string, options: ArchiverErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.status = options.status;
    this.details = options.details;
  }

  static is(error: unknown, code?: ArchiverErrorCode): error is ArchiverError {
    return error instanceof ArchiverError && (code === undefined || error.code === code);
  }
}

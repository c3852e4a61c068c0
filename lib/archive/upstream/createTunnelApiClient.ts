import type { Dispatcher } from 'undici';
import {
  ArchiverError,
  type Clock,
  type Day,
  isDay,
  type Logger,
  silentLogger,
  systemClock,
} from '../../foundation/index.ts';
import { createUndiciAgent } from './createUndiciAgent.ts';
import { type Parsed, parseActiveList, parseHistoryPage } from './parseResponses.ts';
import { redactError } from './redactSecret.ts';
import { type AttemptRequest, requestJsonOnce } from './requestJsonOnce.ts';
import { RetryPolicy, type RetryPolicyOptions, unreachableReason } from './retryPolicy.ts';
import type { RequestGate, RequestOptions, UpstreamApi } from './upstreamApi.ts';

export const DEFAULT_BASE_URL = 'https://dashboard.pinggy.io';
export const ACTIVE_PATH = '/backend/api/v1/session/active';
export const HISTORY_PATH = '/backend/api/v1/session/history';
export const USER_AGENT = 'tunnel-archiver';

export interface TunnelApiClientOptions {
  /** Default {@link DEFAULT_BASE_URL}; a trailing slash or a path prefix is fine. */
  baseUrl?: string;
  apiKey: string;
  /** Default: a keep-alive undici `Agent` (`createUndiciAgent`) owned (and closed) by the client. */
  dispatcher?: Dispatcher;
  clock?: Clock;
  /** Jitter source in [0, 1); default `Math.random`. */
  random?: () => number;
  logger?: Logger;
  retry?: Partial<RetryPolicyOptions>;
  /** Applies to the owned dispatcher only; a supplied dispatcher brings its own. Default 10 s. */
  connectTimeoutMs?: number;
  /** Default 30 s. */
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. Default 30 s. */
  bodyTimeoutMs?: number;
  /** The most bytes of a 2xx body read (a longer one is refused: BODY_TOO_LARGE). Default `MAX_BODY_BYTES`. */
  maxBodyBytes?: number;
}

export interface TunnelApiClient extends UpstreamApi {
  /** Closes the owned dispatcher (a supplied one is left to its owner). */
  close(): Promise<void>;
}

/**
 * The upstream adapter: undici GETs with Bearer auth, zod validation, and retries with backoff
 * (429, 5xx, transport errors, truncated or invalid 200s) inside a time budget. 4xx map to distinct
 * codes at once. The API key never leaves the Authorization header: not in logs, messages or causes.
 */
export function createTunnelApiClient(options: TunnelApiClientOptions): TunnelApiClient {
  const base = parseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
  const apiKey = checkApiKey(options.apiKey);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const policy = new RetryPolicy(options.retry, options.random);
  const owned = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    createUndiciAgent({ keepAliveTimeout: 10_000, connect: { timeout: options.connectTimeoutMs ?? 10_000 } });
  const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json', 'user-agent': USER_AGENT };
  let closed = false;
  /** Set by the first 2xx: from then on an unreachable host is a blip worth retrying. */
  let answered = false;

  async function get<T>(
    path: string,
    parse: (json: unknown) => Parsed<T>,
    signal: AbortSignal | undefined,
    page?: { range: { from: Day; to: Day }; maxItems: number; gate: RequestGate | undefined },
  ): Promise<T> {
    const request = `GET ${path}`;
    const started = clock.now().getTime();
    const elapsed = () => clock.now().getTime() - started;
    const deadline = (attempts: number, reason: unknown) =>
      new ArchiverError(
        'DEADLINE',
        `${request} aborted (deadline) after ${attempts} attempt(s) in ${elapsed()} ms`,
        {
          cause: redactError(reason, apiKey),
          details: { request, attempts, elapsedMs: elapsed() },
        },
      );
    const attemptRequest: AttemptRequest = {
      dispatcher,
      origin: base.origin,
      path: base.prefix + path,
      headers,
      headersTimeoutMs: options.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
      signal,
      gate: page?.gate,
      secret: apiKey,
      baseUrl: base.display,
      now: () => clock.now(),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      ...(page === undefined ? {} : { range: page.range, maxItems: page.maxItems }),
    };
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw deadline(attempt - 1, signal.reason);
      const result = await requestJsonOnce(attemptRequest);
      if (result.kind === 'aborted') throw deadline(attempt, result.reason);
      if (result.kind === 'fatal') throw result.error;
      if (result.kind === 'json') answered = true;
      if (result.kind === 'retry' && !answered) {
        const code = result.error.details?.code;
        const why = unreachableReason(code);
        if (why !== undefined) {
          throw new ArchiverError(
            'UPSTREAM_UNAVAILABLE',
            `cannot reach the tunnel API at ${base.display}: ${why} (${String(code)}); check TUNNEL_API_BASE_URL (--base-url) and the network`,
            { cause: result.error, retryable: false, details: { request, code } },
          );
        }
      }
      let failure: { error: ArchiverError; retryAfterMs?: number };
      if (result.kind === 'json') {
        const parsed = parse(result.json);
        if (parsed.ok) return parsed.value;
        const message = `${request}: HTTP 200 body does not match the expected schema: ${parsed.summary}`;
        failure = {
          error: new ArchiverError('SCHEMA_MISMATCH', message, { status: 200, cause: parsed.error }),
        };
      } else {
        failure = result;
      }
      const { error, retryAfterMs } = failure;
      const delayMs = policy.next(attempt, elapsed(), retryAfterMs);
      if (delayMs === undefined) throw giveUp(request, attempt, elapsed(), error, retryAfterMs);
      logger.warn('upstream request failed; retrying', {
        path,
        status: error.status,
        code: error.details?.code ?? error.code,
        attempt,
        delayMs,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
      try {
        await clock.sleep(delayMs, signal);
      } catch (reason) {
        if (signal?.aborted) throw deadline(attempt, signal.reason);
        throw reason;
      }
    }
  }

  function giveUp(
    request: string,
    attempts: number,
    elapsedMs: number,
    last: ArchiverError,
    retryAfterMs?: number,
  ) {
    const { maxAttempts, budgetMs } = policy.options;
    const why =
      attempts >= maxAttempts
        ? `all ${maxAttempts} attempts used`
        : retryAfterMs !== undefined && retryAfterMs > budgetMs - elapsedMs
          ? `server asked to wait ${retryAfterMs} ms (Retry-After), beyond the ${budgetMs} ms retry budget`
          : `the ${budgetMs} ms retry budget is spent`;
    const code =
      last.code === 'RATE_LIMITED' || last.code === 'SCHEMA_MISMATCH' ? last.code : 'UPSTREAM_UNAVAILABLE';
    const status = last.status === undefined ? '' : `, last status ${last.status}`;
    return new ArchiverError(
      code,
      `${request} failed after ${attempts} attempt(s) in ${elapsedMs} ms (${why}${status}); last error: ${last.message}`,
      {
        cause: last,
        ...(last.status === undefined ? {} : { status: last.status }),
        details: { request, attempts, elapsedMs, lastStatus: last.status },
      },
    );
  }

  function checkOpen(): void {
    if (closed) throw new ArchiverError('INTERNAL', 'the tunnel API client is closed');
  }

  return {
    async listActive(opts: RequestOptions = {}) {
      checkOpen();
      return get(ACTIVE_PATH, parseActiveList, opts.signal);
    },
    async historyPage(from: Day, to: Day, page: number, size: number, opts: RequestOptions = {}) {
      checkOpen();
      if (!isDay(from) || !isDay(to) || from > to) {
        throw new ArchiverError(
          'BAD_REQUEST',
          `history range must be two YYYY-MM-DD days with from <= to, got ${from}/${to}`,
        );
      }
      if (!Number.isSafeInteger(page) || page < 0 || !Number.isSafeInteger(size) || size < 1) {
        throw new ArchiverError(
          'BAD_REQUEST',
          `history page must be an integer >= 0 and size >= 1, got page=${page} size=${size}`,
        );
      }
      const path = `${HISTORY_PATH}/${from}/${to}?page=${page}&size=${size}`;
      // More items than asked for is no page (Spring never sends more): the client refuses it as soon as
      // the items are counted, since parsing millions of tiny items costs far more memory than their body.
      return get(path, (json) => parseHistoryPage(json, clock.now()), opts.signal, {
        range: { from, to },
        maxItems: size,
        gate: opts.gate,
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await dispatcher.close();
    },
  };
}

function parseBaseUrl(raw: string): { origin: string; prefix: string; display: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ArchiverError('CONFIG_INVALID', `TUNNEL_API_BASE_URL must be an http(s) URL, got '${raw}'`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `TUNNEL_API_BASE_URL must be an http(s) URL without credentials, query or fragment, got '${raw}'`,
    );
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, prefix, display: url.origin + prefix };
}

function checkApiKey(apiKey: string): string {
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'TUNNEL_API_KEY is empty: create an API key in the dashboard and set TUNNEL_API_KEY',
    );
  }
  // Header-injection guard; the message must not echo the key.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'TUNNEL_API_KEY contains whitespace or non-printable characters; paste the key exactly as the dashboard shows it',
    );
  }
  return apiKey;
}

import type { Dispatcher } from 'undici';
import { ArchiverError } from '../../foundation/index.ts';
import { MAX_BODY_BYTES } from './bodyLimits.ts';
import { parseJsonBytes } from './parseJsonBytes.ts';
import { type BodyBytes, readBodyBytes } from './readBodyBytes.ts';
import { redactError, redactText } from './redactSecret.ts';
import { parseRetryAfter } from './retryPolicy.ts';
import {
  extractServerMessage,
  isRetryableStatus,
  retryableStatusError,
  terminalStatusError,
} from './statusErrors.ts';
import type { RequestGate } from './upstreamApi.ts';

/** Everything one GET needs; built once per client, `path`/`range`/`signal` per call. */
export interface AttemptRequest {
  dispatcher: Dispatcher;
  origin: string;
  path: string;
  headers: Record<string, string>;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  signal: AbortSignal | undefined;
  /** The caller's limit on exchanges in flight, if any: the body is parsed after the slot is given back. */
  gate?: RequestGate | undefined;
  /** The API key, masked out of anything this attempt reports. */
  secret: string;
  baseUrl: string;
  range?: { from: string; to: string };
  now: () => Date;
  /** The most bytes of a 2xx body read; default {@link MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /**
   * The most items a page's top-level `content` may hold (the page size asked for): a body with more is
   * refused (`BODY_TOO_LARGE`) as soon as that is counted, before the rest of it is parsed.
   */
  maxItems?: number;
}

/** The outcome of one attempt, before schema validation. */
export type AttemptResult =
  | { kind: 'json'; json: unknown }
  | { kind: 'retry'; error: ArchiverError; retryAfterMs?: number }
  | { kind: 'fatal'; error: ArchiverError }
  | { kind: 'aborted'; reason: unknown };

/** A body not read. */
const NO_BYTES = Buffer.alloc(0);

/** Error bodies are only mined for a message. */
const MAX_ERROR_BYTES = 4 * 1024;

/** Errors that another attempt cannot fix: our own bugs, a closed client, TLS identity trouble. */
const FATAL_TRANSPORT = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_INVALID_RETURN_VALUE',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_URL',
]);

/**
 * One GET, classified: parsed JSON of a 2xx, a retryable failure (429/5xx/transport/invalid JSON),
 * a terminal one (4xx), or an abort. Bodies are always consumed or destroyed, so the keep-alive
 * connection goes back to the pool; nothing returned carries the API key.
 */
export async function requestJsonOnce(req: AttemptRequest): Promise<AttemptResult> {
  const request = `GET ${req.path}`;
  let answer: Exchanged;
  try {
    answer = req.gate ? await req.gate.run(() => exchange(req)) : await exchange(req);
  } catch (error) {
    if (req.signal?.aborted) return { kind: 'aborted', reason: req.signal.reason };
    const safe = redactError(error, req.secret);
    const code = transportCode(safe) ?? safe.name;
    const message = `${request}: ${code}: ${safe.message}`;
    if (FATAL_TRANSPORT.has(code)) return fatal(new ArchiverError('INTERNAL', message, { cause: safe }));
    if (/CERT|TLS|SSL/.test(code))
      return fatal(new ArchiverError('UPSTREAM_UNAVAILABLE', message, { cause: safe, retryable: false }));
    return retry(new ArchiverError('UPSTREAM_UNAVAILABLE', message, { cause: safe, details: { code } }));
  }
  if (req.gate) await nextRequestSent();
  const { status, headers, body } = answer;
  if (status >= 200 && status < 300) {
    if (body.truncated) {
      const limit = req.maxBodyBytes ?? MAX_BODY_BYTES;
      return fatal(
        new ArchiverError(
          'BODY_TOO_LARGE',
          `${request}: response body exceeds ${limit} bytes (${body.declaredBytes === undefined ? 'refused after reading that much' : `Content-Length ${body.declaredBytes}`}); the page is not parsed: ask for a smaller PAGE_SIZE`,
          { status, details: { request, limitBytes: limit, declaredBytes: body.declaredBytes } },
        ),
      );
    }
    try {
      const json = parseJsonBytes(body.bytes, req.maxItems === undefined ? {} : { maxItems: req.maxItems });
      return { kind: 'json', json };
    } catch (error) {
      if (ArchiverError.is(error, 'BODY_TOO_LARGE')) {
        return fatal(
          new ArchiverError('BODY_TOO_LARGE', `${request}: ${error.message}; the page is not taken`, {
            status,
            details: { request, ...error.details },
          }),
        );
      }
      const message = `${request}: HTTP ${status} body is not valid JSON (${body.bytes.toString('utf8').length} chars; truncated or not JSON)`;
      return retry(
        new ArchiverError('SCHEMA_MISMATCH', message, { status, cause: redactError(error, req.secret) }),
      );
    }
  }
  const serverMessage = extractServerMessage(body.bytes.toString('utf8'), header(headers, 'content-type'));
  const ctx = {
    status,
    request,
    baseUrl: req.baseUrl,
    ...(req.range === undefined ? {} : { range: req.range }),
    ...(serverMessage === undefined ? {} : { serverMessage: redactText(serverMessage, req.secret) }),
  };
  if (isRetryableStatus(status)) {
    const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), req.now());
    return {
      kind: 'retry',
      error: retryableStatusError(ctx),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status >= 300 && status < 400) {
    const location = header(headers, 'location');
    const to = location === undefined ? '' : ` to ${redactText(location, req.secret)}`;
    return fatal(
      new ArchiverError(
        'NOT_FOUND',
        `HTTP ${status} redirect${to} for ${request}: check the base URL (now ${req.baseUrl})`,
        { status },
      ),
    );
  }
  return fatal(terminalStatusError(ctx));
}

/**
 * Lets the request that took this attempt's slot go out before this body is parsed. A waiting request is
 * dispatched within the microtasks of the slot's release, but undici writes a request on a reused
 * keep-alive socket only in a later check phase (a `setImmediate`, to see a server's close first); parsing
 * a page at once would hold that write back by the parse's whole length (5–17 ms a page measured with
 * 2,000-record pages). Two turns of the check phase: the first may come before undici's, the second
 * comes after it.
 */
async function nextRequestSent(): Promise<void> {
  await new Promise(setImmediate);
  await new Promise(setImmediate);
}

/** What one exchange with the server brought back: its status, headers and (the start of) its body. */
interface Exchanged {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: BodyBytes & { declaredBytes?: number };
}

/**
 * Sends the request and reads its body: the part of an attempt that holds the caller's slot (`gate`).
 * A 2xx body is kept up to {@link MAX_BODY_BYTES} (one whose Content-Length says more is not read at all,
 * and a longer one is cut off as soon as it passes the cap); an error body is only mined for a message,
 * and one that breaks off still leaves a usable status (classified by status, not by body).
 */
async function exchange(req: AttemptRequest): Promise<Exchanged> {
  const res = await req.dispatcher.request({
    origin: req.origin,
    path: req.path,
    method: 'GET',
    headers: req.headers,
    headersTimeout: req.headersTimeoutMs,
    bodyTimeout: req.bodyTimeoutMs,
    signal: req.signal ?? null,
  });
  const status = res.statusCode;
  if (status >= 200 && status < 300) {
    const limit = req.maxBodyBytes ?? MAX_BODY_BYTES;
    const declared = Number(header(res.headers, 'content-length'));
    if (Number.isSafeInteger(declared) && declared > limit) {
      res.body.destroy();
      return {
        status,
        headers: res.headers,
        body: { bytes: NO_BYTES, truncated: true, declaredBytes: declared },
      };
    }
    return { status, headers: res.headers, body: await readBodyBytes(res.body, limit, 0) };
  }
  const body = await readBodyBytes(res.body, MAX_ERROR_BYTES).catch(() => ({
    bytes: NO_BYTES,
    truncated: false,
  }));
  return { status, headers: res.headers, body };
}

function retry(error: ArchiverError): AttemptResult {
  return { kind: 'retry', error };
}

function fatal(error: ArchiverError): AttemptResult {
  return { kind: 'fatal', error };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The errno-style code of a transport error, looking through `cause` and AggregateError members. */
function transportCode(error: unknown, depth = 0): string | undefined {
  if (error === null || typeof error !== 'object' || depth > 4) return undefined;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  if (Array.isArray(e.errors)) {
    for (const member of e.errors) {
      const code = transportCode(member, depth + 1);
      if (code !== undefined) return code;
    }
  }
  return transportCode(e.cause, depth + 1);
}

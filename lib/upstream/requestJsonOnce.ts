import type { Dispatcher } from 'undici';
import { ArchiverError } from '../errors/archiverError.ts';
import { readBodyText } from './readBody.ts';
import { redactError, redactText } from './redactSecret.ts';
import { parseRetryAfter } from './retryPolicy.ts';
import {
  extractServerMessage,
  isRetryableStatus,
  retryableStatusError,
  terminalStatusError,
} from './statusErrors.ts';

/** Everything one GET needs; built once per client, `path`/`range`/`signal` per call. */
export interface AttemptRequest {
  dispatcher: Dispatcher;
  origin: string;
  path: string;
  headers: Record<string, string>;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  signal: AbortSignal | undefined;
  /** The API key, masked out of anything this attempt reports. */
  secret: string;
  baseUrl: string;
  range?: { from: string; to: string };
  now: () => Date;
}

/** The outcome of one attempt, before schema validation. */
export type AttemptResult =
  | { kind: 'json'; json: unknown }
  | { kind: 'retry'; error: ArchiverError; retryAfterMs?: number }
  | { kind: 'fatal'; error: ArchiverError }
  | { kind: 'aborted'; reason: unknown };

/** A page of 2000 wide records is a few MB; anything far beyond is not a page. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;
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
  try {
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
      const body = await readBodyText(res.body, MAX_JSON_BYTES, 0);
      if (body.truncated) {
        return fatal(
          new ArchiverError(
            'SCHEMA_MISMATCH',
            `${request}: response body exceeds ${MAX_JSON_BYTES} bytes; ask for a smaller page size`,
            { status, retryable: false },
          ),
        );
      }
      try {
        return { kind: 'json', json: JSON.parse(body.text) };
      } catch (error) {
        const message = `${request}: HTTP ${status} body is not valid JSON (${body.text.length} chars; truncated or not JSON)`;
        return retry(
          new ArchiverError('SCHEMA_MISMATCH', message, { status, cause: redactError(error, req.secret) }),
        );
      }
    }
    const contentType = header(res.headers, 'content-type');
    // An error body that breaks off still leaves a usable status: classify by status, not by body.
    const body = await readBodyText(res.body, MAX_ERROR_BYTES).catch(() => ({ text: '', truncated: false }));
    const serverMessage = extractServerMessage(body.text, contentType);
    const ctx = {
      status,
      request,
      baseUrl: req.baseUrl,
      ...(req.range === undefined ? {} : { range: req.range }),
      ...(serverMessage === undefined ? {} : { serverMessage: redactText(serverMessage, req.secret) }),
    };
    if (isRetryableStatus(status)) {
      const retryAfterMs = parseRetryAfter(header(res.headers, 'retry-after'), req.now());
      return {
        kind: 'retry',
        error: retryableStatusError(ctx),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    if (status >= 300 && status < 400) {
      const location = header(res.headers, 'location');
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

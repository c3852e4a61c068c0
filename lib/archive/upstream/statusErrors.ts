import { ArchiverError } from '../../foundation/index.ts';

/** What a status-mapping needs to write a message a person can act on. */
export interface StatusContext {
  status: number;
  /** `GET <path>` without the origin (never carries the key). */
  request: string;
  /** Base URL as configured, without a trailing slash. */
  baseUrl: string;
  /** Set for history calls, so a 400 can name the dates. */
  range?: { from: string; to: string };
  /** A short, redacted message the server put in its error body, if any. */
  serverMessage?: string;
}

/** Statuses that are worth another attempt: throttling, server trouble, a request timeout. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** The per-attempt error of a retryable status; the code of the last one names the final error. */
export function retryableStatusError(ctx: StatusContext): ArchiverError {
  const code = ctx.status === 429 ? 'RATE_LIMITED' : 'UPSTREAM_UNAVAILABLE';
  return new ArchiverError(code, `HTTP ${ctx.status} from ${ctx.request}${said(ctx)}`, {
    status: ctx.status,
  });
}

/**
 * Maps a non-retryable 4xx (or unexpected status) to a distinct code and an actionable message.
 * The seed documents no error statuses; these readings follow `upstream-facts.md`.
 */
export function terminalStatusError(ctx: StatusContext): ArchiverError {
  const { status, request, baseUrl } = ctx;
  const opts = { status, details: { request } };
  switch (status) {
    case 401:
      return new ArchiverError(
        'AUTH_REJECTED',
        `API key rejected (HTTP 401): the key is wrong or revoked; create one in the dashboard at ${baseUrl}/api-keys and set TUNNEL_API_KEY${said(ctx)}`,
        opts,
      );
    case 403:
      return new ArchiverError(
        'PLAN_REQUIRED',
        `HTTP 403: the account behind this API key is not on the paid plan (the tunnel session API is for paid plans only), or the key lacks access; upgrade the account or use a key from a paid account (${baseUrl}/api-keys)${said(ctx)}`,
        opts,
      );
    case 404:
      return new ArchiverError(
        'NOT_FOUND',
        `HTTP 404 for ${request}: check the base URL (TUNNEL_API_BASE_URL, now ${baseUrl}); the API lives under /backend/api/v1${said(ctx)}`,
        opts,
      );
    case 400:
      if (ctx.range !== undefined) {
        return new ArchiverError(
          'OUTSIDE_WINDOW',
          `HTTP 400 for ${ctx.range.from}/${ctx.range.to}: the history API only serves the last 60 days; ask for days inside that window (dates YYYY-MM-DD, from <= to)${said(ctx)}`,
          opts,
        );
      }
      break;
  }
  return new ArchiverError(
    'BAD_REQUEST',
    `HTTP ${status} from ${request}: the server refused the request${said(ctx)}`,
    opts,
  );
}

function said(ctx: StatusContext): string {
  return ctx.serverMessage ? `; server said: "${ctx.serverMessage}"` : '';
}

const MESSAGE_FIELDS = ['message', 'error_description', 'error', 'detail', 'title', 'reason'] as const;
const MAX_MESSAGE = 300;

/**
 * Pulls a short human message out of an error body that may be JSON, HTML, plain text or empty.
 * Returns `undefined` rather than guessing when there is nothing readable.
 */
export function extractServerMessage(text: string, contentType: string | undefined): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('{') || /json/i.test(contentType ?? '')) {
    try {
      const json: unknown = JSON.parse(trimmed);
      if (json !== null && typeof json === 'object') {
        for (const field of MESSAGE_FIELDS) {
          const value = (json as Record<string, unknown>)[field];
          if (typeof value === 'string' && value.trim() !== '') return clip(value);
        }
        return undefined;
      }
    } catch {
      // not JSON after all: fall through to text handling
    }
  }
  if (trimmed.startsWith('<') || /html/i.test(contentType ?? '')) {
    const title =
      /<title[^>]*>([\s\S]*?)<\/title>/i.exec(trimmed)?.[1] ??
      /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(trimmed)?.[1];
    return title === undefined ? undefined : clip(title.replace(/<[^>]*>/g, ''));
  }
  return clip(trimmed);
}

function clip(s: string): string | undefined {
  const oneLine = s.replace(/\s+/g, ' ').trim();
  if (oneLine === '') return undefined;
  return oneLine.length > MAX_MESSAGE ? `${oneLine.slice(0, MAX_MESSAGE)}…` : oneLine;
}

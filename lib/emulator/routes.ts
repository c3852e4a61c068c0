import { addDays, isDay, toDay } from '../clock/day.ts';
import type { EmulatedSession } from './dataset.ts';
import {
  type EmulatorResponse,
  forbidden,
  json,
  methodNotAllowed,
  springError,
  unauthorized,
} from './errorBodies.ts';
import { buildPage, parsePaging } from './pageBuilder.ts';
import { Rng } from './prng.ts';
import type { SessionArchive } from './sessionArchive.ts';

export const ACTIVE_PATH = '/backend/api/v1/session/active';
const HISTORY_RE = /^\/backend\/api\/v1\/session\/history\/([^/]+)\/([^/]+)\/?$/;

/** Everything a route needs for one request; the server builds it per request. */
export interface RouteContext {
  archive: SessionArchive;
  now: Date;
  windowDays: number;
  defaultPageSize: number;
  maxPageSize: number;
  paidKeys: ReadonlySet<string>;
  freeKeys: ReadonlySet<string>;
  stableOrder: boolean;
  driftInsertPerRequest: number;
  shuffleSeed: () => number;
  onDrift: (released: number) => void;
}

/** First queryable day: the window holds `windowDays` UTC days ending today. */
export function windowStart(now: Date, windowDays: number): string {
  return addDays(toDay(now), -(windowDays - 1));
}

/** Routes one request (faults already handled): auth, then path, then method. */
export function route(
  method: string,
  rawUrl: string,
  authorization: string | undefined,
  ctx: RouteContext,
): EmulatorResponse {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (key === undefined || !(ctx.paidKeys.has(key) || ctx.freeKeys.has(key))) return unauthorized();
  if (!ctx.paidKeys.has(key)) return forbidden();

  // Origin-form targets are appended verbatim, so `//x/...` stays a path instead of becoming a host.
  const url = rawUrl.startsWith('/') ? new URL(`http://emulator.invalid${rawUrl}`) : new URL(rawUrl);
  const path = url.pathname;
  const history = HISTORY_RE.exec(path);
  if (path !== ACTIVE_PATH && path !== `${ACTIVE_PATH}/` && !history) {
    return springError(404, 'No static resource found', path, ctx.now);
  }
  if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed();
  if (!history)
    return json(
      200,
      ctx.archive.active(ctx.now.getTime()).map((s) => s.active),
    );
  return historyRoute(safeDecode(history[1]!), safeDecode(history[2]!), url, ctx);
}

function historyRoute(from: string, to: string, url: URL, ctx: RouteContext): EmulatorResponse {
  const path = url.pathname;
  for (const d of [from, to]) {
    if (!isDay(d)) return springError(400, `Invalid date '${d}', expected YYYY-MM-DD`, path, ctx.now);
  }
  if (from > to) return springError(400, 'Start date must not be after end date', path, ctx.now);
  const oldest = windowStart(ctx.now, ctx.windowDays);
  if (from < oldest) {
    return springError(
      400,
      `Only data from the last ${ctx.windowDays} days can be queried (from ${oldest})`,
      path,
      ctx.now,
    );
  }
  const atMs = ctx.now.getTime();
  if (ctx.driftInsertPerRequest > 0)
    ctx.onDrift(ctx.archive.release(from, to, ctx.driftInsertPerRequest, atMs));
  const { page, size } = parsePaging(url.searchParams, ctx.defaultPageSize, ctx.maxPageSize);
  const rows = orderRows(ctx.archive.visible(from, to, atMs), ctx);
  return json(200, buildPage(rows, page, size));
}

/** UNSORTED, like the real service: a fresh permutation per request unless `stableOrder`. */
function orderRows(rows: EmulatedSession[], ctx: RouteContext): unknown[] {
  if (ctx.stableOrder) rows.sort((a, b) => a.orderKey - b.orderKey);
  else new Rng(ctx.shuffleSeed()).shuffle(rows);
  return rows.map((s) => s.history);
}

/** A malformed escape is just a malformed date (400), not a crash. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

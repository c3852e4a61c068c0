import { addDays, isDay, toDay } from '../../foundation/index.ts';
import type { EmulatedSession, WireActiveSession } from './dataset.ts';
import {
  type EmulatorResponse,
  forbidden,
  json,
  methodNotAllowed,
  springError,
  unauthorized,
} from './errorBodies.ts';
import { DEFAULT_LIVE_SHAPE, inLiveShape, type LiveShape } from './liveShape.ts';
import { buildPage, parsePaging } from './pageBuilder.ts';
import type { PoisonItem } from './poison.ts';
import { Rng } from './prng.ts';
import type { SessionArchive } from './sessionArchive.ts';
import { type StaleTotals, staleCount } from './staleTotals.ts';

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
  /** How `totalElements` is counted (default: exactly). */
  staleTotals?: StaleTotals;
  driftInsertPerRequest: number;
  shuffleSeed: () => number;
  onDrift: (released: number) => void;
  /** How the active list names a session's token (default: as documented). */
  liveShape?: LiveShape;
}

/** First queryable day: the window holds `windowDays` UTC days ending today. */
export function windowStart(now: Date, windowDays: number): string {
  return addDays(toDay(now), -(windowDays - 1));
}

/** The active list the API answers at `at`, in `shape`. */
export function activeList(archive: SessionArchive, at: Date, shape: LiveShape): WireActiveSession[] {
  return archive.active(at.getTime()).map((s) => inLiveShape(s.active, shape));
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
  if (!history) return json(200, activeList(ctx.archive, ctx.now, ctx.liveShape ?? DEFAULT_LIVE_SHAPE));
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
  const sessions = ctx.archive.visible(from, to, atMs);
  const poison = ctx.archive.poisonIn(from, to, atMs);
  const rows = orderRows(sessions, poison, from === to, ctx);
  const counted = staleCount(
    ctx.staleTotals,
    size,
    rows.length,
    (lagMs) => ctx.archive.visible(from, to, atMs - lagMs).length + poison.length,
  );
  const built = buildPage(rows, page, size, counted);
  // Only the page's own rows are turned into wire objects.
  return json(200, { ...built, content: built.content.map(wireOf) });
}

type Row = EmulatedSession | PoisonItem;

const wireOf = (row: Row): unknown => ('kind' in row ? row.item : row.history);

/**
 * UNSORTED, like the real service: a fresh permutation per request unless `stableOrder`. The archive
 * keeps each day in stable order already, so one clean day needs no sort.
 */
function orderRows(
  sessions: readonly EmulatedSession[],
  poison: PoisonItem[],
  oneDay: boolean,
  ctx: RouteContext,
): readonly Row[] {
  if (ctx.stableOrder && oneDay && poison.length === 0) return sessions;
  const rows: Row[] = [...sessions, ...poison];
  if (ctx.stableOrder) rows.sort((a, b) => a.orderKey - b.orderKey);
  else new Rng(ctx.shuffleSeed()).shuffle(rows);
  return rows;
}

/** A malformed escape is just a malformed date (400), not a crash. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

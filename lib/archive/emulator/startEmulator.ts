import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ArchiverError } from '../../foundation/index.ts';
import { type DatasetOptions, DEFAULT_DATASET } from './dataset.ts';
import { type EmulatorClock, realClock } from './emulatorClock.ts';
import { type EmulatorResponse, htmlError, tooManyRequests } from './errorBodies.ts';
import { type FaultConfig, FaultInjector } from './faults.ts';
import { type LiveShape, resolveLiveShape } from './liveShape.ts';
import { type PoisonConfig, resolvePoison } from './poison.ts';
import { route } from './routes.ts';
import { EMULATOR_TRAFFIC, type EmulatorTraffic, SessionArchive } from './sessionArchive.ts';
import { DEFAULT_STALE_LAG_MS, type StaleTotals } from './staleTotals.ts';

export const EMULATOR_PAID_KEY = 'emulator-paid-key';
export const EMULATOR_FREE_KEY = 'emulator-free-key';

export interface EmulatorOptions {
  seed?: string | number;
  host?: string;
  port?: number;
  clock?: EmulatorClock;
  windowDays?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  paidKeys?: string[];
  freeKeys?: string[];
  faults?: Partial<FaultConfig>;
  dataset?: Partial<DatasetOptions>;
  /** Multiplies every day's volume by N (deterministic; the same as `dataset.scale`). */
  scale?: number;
  /**
   * Stale `totalElements`/`totalPages`: `floor-pages` rounds the count down to whole pages of the
   * echoed size; `lag` counts an older snapshot (`staleLagMs` ago, default 6 h). Default `off`.
   */
  staleTotals?: 'floor-pages' | 'lag' | 'off';
  staleLagMs?: number;
  /** Invalid (and token-bearing) items injected into history pages, deterministic by seed. */
  poisonRecords?: PoisonConfig;
  /** Real time for outages and Retry-After dates; defaults to `Date.now`. */
  wallNow?: () => number;
  /**
   * The detections demo (`npm start`): office traffic that trips no rule (`DETECTION_DEMO_DATASET`)
   * plus one planted pattern per starter rule on the two days before the clock's day at start.
   */
  detectionDemo?: boolean;
  /**
   * The ordinary traffic: `default` (the seeded dataset) or `team` (a dozen people behind an office NAT
   * and at home, two CI bots every hour, one daily 9-hour tunnel: `teamTraffic`). Default `default`.
   */
  traffic?: EmulatorTraffic;
  /**
   * How the active list names a session's token: `documented` (`token: null`, `virtualToken:
   * "<token>-<port>"`, as the service's documented example) or `token-filled` (`token` set for every
   * session opened without a virtual token). Default `documented`.
   */
  liveShape?: LiveShape;
  /**
   * Called once with what the emulator serves from (its archive, fault injector, counters), before it
   * listens: how a process that embeds the emulator looks inside it (the dev kit's test hooks,
   * devkit/startEmulator.ts). The emulator a user starts never sets it.
   */
  onModel?: (model: EmulatorModel) => void;
}

/** What a running emulator serves from (see {@link EmulatorOptions.onModel}). */
export interface EmulatorModel {
  archive: SessionArchive;
  faults: FaultInjector;
  stats: EmulatorStats;
  clock: EmulatorClock;
  windowDays: number;
  liveShape: LiveShape;
}

/**
 * The dataset knobs of the detections demo: office traffic and sessions under 4 hours. The long-lived
 * tunnels stay (the active list shows them; they never end inside the window, so history never does).
 */
export const DETECTION_DEMO_DATASET: Partial<DatasetOptions> = {
  office: true,
  maxSessionMs: 4 * 3_600_000,
};

export interface EmulatorStats {
  requests: number;
  byStatus: Record<string, number>;
  faultsInjected: Record<string, number>;
}

export interface EmulatorHandle {
  /** `http://host:port`, no trailing slash. */
  url: string;
  port: number;
  /** Stops listening and destroys open keep-alive sockets. */
  close(): Promise<void>;
  clock: EmulatorClock;
}

/**
 * Starts a faithful stand-in for the tunnel session API on a real HTTP port, with deterministic data and
 * opt-in faults, so clients are tested against the wire behaviour rather than against mocks.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? realClock();
  const wallNow = options.wallNow ?? Date.now;
  const windowDays = options.windowDays ?? 60;
  const defaultPageSize = options.defaultPageSize ?? 20;
  const maxPageSize = options.maxPageSize ?? 2000;
  for (const [name, value] of Object.entries({ windowDays, defaultPageSize, maxPageSize })) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ArchiverError('CONFIG_INVALID', `emulator ${name} must be a positive integer, got ${value}`);
    }
  }
  const scale = options.scale ?? options.dataset?.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new ArchiverError('CONFIG_INVALID', `emulator scale must be a positive number, got ${scale}`);
  }
  const staleTotals = resolveStale(options.staleTotals, options.staleLagMs);
  const poison = resolvePoison(options.poisonRecords);
  const demo = options.detectionDemo === true;
  const liveShape = resolveLiveShape(options.liveShape);
  const traffic = options.traffic ?? 'default';
  if (!EMULATOR_TRAFFIC.includes(traffic)) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `emulator traffic must be ${EMULATOR_TRAFFIC.join(' or ')}, got ${String(traffic)}`,
    );
  }
  const archive = new SessionArchive(
    seed,
    { ...DEFAULT_DATASET, ...(demo ? DETECTION_DEMO_DATASET : {}), ...options.dataset, scale },
    poison,
    demo ? clock.now().toISOString().slice(0, 10) : undefined,
    traffic,
  );
  const faults = new FaultInjector(seed, options.faults);
  const paidKeys = new Set(options.paidKeys ?? [EMULATOR_PAID_KEY]);
  const freeKeys = new Set(options.freeKeys ?? [EMULATOR_FREE_KEY]);
  const stats: EmulatorStats = { requests: 0, byStatus: {}, faultsInjected: {} };
  const count = (bucket: Record<string, number>, key: string, n = 1) => {
    bucket[key] = (bucket[key] ?? 0) + n;
  };
  options.onModel?.({ archive, faults, stats, clock, windowDays, liveShape });
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const respond = (req: IncomingMessage, res: ServerResponse): void => {
    stats.requests++;
    const decision = faults.decide(wallNow());
    if (decision.kind === 'reset') {
      count(stats.faultsInjected, 'reset');
      req.socket.destroy();
      return;
    }
    let response: EmulatorResponse;
    let spoil: 'cut' | 'invalid-json' | null = null;
    if (decision.kind === 'outage') {
      count(stats.faultsInjected, 'outage');
      response = htmlError(503, decision.retryAfterSeconds);
    } else if (decision.kind === '429') {
      count(stats.faultsInjected, '429');
      response = tooManyRequests(retryAfterValue(faults.config, wallNow()));
    } else if (decision.kind === '5xx') {
      count(stats.faultsInjected, '5xx');
      response = htmlError(decision.status);
    } else {
      response = route(req.method ?? 'GET', req.url ?? '/', req.headers.authorization, {
        archive,
        now: clock.now(),
        windowDays,
        defaultPageSize: Math.min(defaultPageSize, maxPageSize),
        maxPageSize,
        paidKeys,
        freeKeys,
        stableOrder: faults.config.stableOrder,
        ...(staleTotals === undefined ? {} : { staleTotals }),
        driftInsertPerRequest: faults.config.driftInsertPerRequest,
        shuffleSeed: () => faults.shuffleSeed(),
        onDrift: (n) => count(stats.faultsInjected, 'drift', n),
        liveShape,
      });
      if (response.status === 200) spoil = faults.truncate();
    }
    count(stats.byStatus, String(response.status));
    if (spoil) count(stats.faultsInjected, spoil === 'cut' ? 'truncate' : 'invalid-json');
    write(req, res, response, spoil);
  };

  const server = createServer((req, res) => {
    const delay = faults.config.delayMs;
    const run = () => {
      try {
        respond(req, res);
      } catch {
        // A bug in the emulator itself: answer like a crashed backend rather than hanging the client.
        count(stats.byStatus, '500');
        write(req, res, htmlError(500), null);
      }
    };
    if (delay <= 0) return run();
    count(stats.faultsInjected, 'delay');
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, delay);
    timers.add(timer);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('emulator did not bind a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    clock,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function resolveStale(
  mode: EmulatorOptions['staleTotals'],
  lagMs: number | undefined,
): StaleTotals | undefined {
  if (mode === undefined || mode === 'off') return undefined;
  if (mode === 'floor-pages') return { mode };
  if (mode === 'lag') {
    const ms = lagMs ?? DEFAULT_STALE_LAG_MS;
    if (!Number.isInteger(ms) || ms < 0) {
      throw new ArchiverError(
        'CONFIG_INVALID',
        `emulator staleLagMs must be a non-negative integer, got ${ms}`,
      );
    }
    return { mode, lagMs: ms };
  }
  throw new ArchiverError(
    'CONFIG_INVALID',
    `emulator staleTotals must be floor-pages, lag or off, got '${String(mode)}'`,
  );
}

function retryAfterValue(config: FaultConfig, wallNowMs: number): string | null {
  if (config.retryAfter === 'none') return null;
  if (config.retryAfter === 'seconds') return String(config.retryAfterSeconds);
  return new Date(wallNowMs + config.retryAfterSeconds * 1000).toUTCString();
}

/** Writes the response, or deliberately spoils a 200: cut mid-body (then kill the socket) or invalid JSON. */
function write(
  req: IncomingMessage,
  res: ServerResponse,
  response: EmulatorResponse,
  spoil: 'cut' | 'invalid-json' | null,
): void {
  let body = Buffer.from(response.body, 'utf8');
  if (spoil === 'invalid-json') body = Buffer.from(`${response.body.slice(0, -1)},}`, 'utf8');
  res.writeHead(response.status, { ...response.headers, 'content-length': String(body.length) });
  if (spoil === 'cut') {
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => req.socket.destroy());
    return;
  }
  res.end(body);
}

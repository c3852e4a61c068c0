import { parseArgs } from 'node:util';
import {
  acceleratedClock,
  DEFAULT_LIVE_SHAPE,
  EMULATOR_FREE_KEY,
  EMULATOR_PAID_KEY,
  EMULATOR_TRAFFIC,
  type EmulatorClock,
  type EmulatorTraffic,
  type FaultConfig,
  fixedClock,
  LIVE_SHAPES,
  type LiveShape,
  outageFor,
  type PoisonConfig,
  realClock,
  resolveFaults,
  startEmulator,
} from '../archive/index.ts';
import { ArchiverError, toDay } from '../foundation/index.ts';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Stops the server like SIGINT would (tests); SIGINT/SIGTERM always work too. */
  signal?: AbortSignal;
}

const USAGE = `Usage: tunnel-archiver emulator [options]

Serves a faithful emulator of the tunnel session API (active + paged history) with deterministic data.

Options:
  --port N             port to listen on (default 8080; 0 = any free port)
  --host H             address to bind (default 127.0.0.1)
  --seed S             data seed (default 1)
  --window-days N      queryable history window in days (default 60)
  --max-page-size N    cap on ?size= (default 2000)
  --now ISO            freeze the emulated clock at this instant
  --rate R             run the emulated clock R times faster than real time (from --now or now)
  --scale N            multiply every day's volume by N (deterministic; default 1)
  --traffic P          ordinary traffic: default (the seeded dataset) | team (a dozen people behind an
                       office NAT and at home, two CI bots every hour, one daily 9-hour tunnel)
  --live-shape S       how the active list names a session's token: documented (token null, the token
                       in virtualToken "<token>-<port>", as the service's example; default) |
                       token-filled (token set for every session without a virtual token)
Upstream flaws (all off by default):
  --stale-totals MODE  stale totalElements/totalPages: floor-pages (a cached COUNT rounded down to
                       whole pages) | lag (counted on an older snapshot) | off
  --stale-lag-ms N     age of the lag snapshot in milliseconds (default 21600000 = 6 h)
  --poison-count N     inject N invalid records into every day's history (same items on every request)
  --poison-rate P      inject invalid records at P times each day's volume (at least 1 per day)
Faults (all off by default):
  --rate-429 P         probability of 429 Too Many Requests
  --retry-after S      Retry-After style on 429: seconds | http-date | none (default seconds)
  --rate-5xx P         probability of 500/502/503 with an HTML body
  --outage-ms N        answer 503 to everything for the first N real milliseconds
  --rate-reset P       probability of closing the socket without a response
  --rate-truncate P    probability of spoiling a 200 body (cut mid-JSON or invalid JSON)
  --delay-ms N         delay every response by N milliseconds
  --stable-order       keep one fixed order instead of a new permutation per request
  --drift N            each history request makes N late-ingested rows visible
  --help               print this help
`;

/** `{ name: { type: 'string' } }` for each name: the flags that take a value. */
function stringFlags<const K extends string>(names: readonly K[]): Record<K, { type: 'string' }> {
  return Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as Record<K, { type: 'string' }>;
}

/** The emulator's flags (it parses its own; `tunnel-archiver emulator --help`). */
export const EMULATOR_FLAGS = {
  ...stringFlags([
    'port',
    'host',
    'seed',
    'window-days',
    'max-page-size',
    'now',
    'rate',
    'scale',
    'traffic',
    'live-shape',
    'stale-totals',
    'stale-lag-ms',
    'poison-count',
    'poison-rate',
    'rate-429',
    'retry-after',
    'rate-5xx',
    'outage-ms',
    'rate-reset',
    'rate-truncate',
    'delay-ms',
    'drift',
  ]),
  'stable-order': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/**
 * `tunnel-archiver emulator`: runs the emulator until SIGINT/SIGTERM (or `io.signal`) and resolves 0;
 * invalid flags print one line and resolve 2, so scripts can tell misuse from failure.
 */
export async function runEmulatorCommand(argv: string[], io: CommandIo = process): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    io.stderr.write(`emulator: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator(parsed);
  } catch (error) {
    io.stderr.write(
      `emulator: cannot listen on ${parsed.host}:${parsed.port}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  // Stopping is listened for before the emulator says it listens: a signal sent on that line stops it cleanly.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop, { once: true });
  });
  const day = toDay(emulator.clock.now());
  io.stdout.write(
    [
      `Tunnel session API emulator listening on ${emulator.url}`,
      `  paid key: ${EMULATOR_PAID_KEY}   (200)`,
      `  free key: ${EMULATOR_FREE_KEY}   (403)`,
      `  data: ${describeData(parsed)}`,
      `  try: curl -H 'Authorization: Bearer ${EMULATOR_PAID_KEY}' '${emulator.url}/backend/api/v1/session/history/${day}/${day}?page=0&size=20'`,
      '',
    ].join('\n'),
  );
  await stopped;
  await emulator.close();
  io.stdout.write('emulator stopped\n');
  return 0;
}

function parseFlags(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: EMULATOR_FLAGS,
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help' as const;
  const faults: Partial<FaultConfig> = {};
  if (values['rate-429'] !== undefined) faults.rate429 = num('--rate-429', values['rate-429']);
  if (values['retry-after'] !== undefined)
    faults.retryAfter = values['retry-after'] as FaultConfig['retryAfter'];
  if (values['rate-5xx'] !== undefined) faults.rate5xx = num('--rate-5xx', values['rate-5xx']);
  if (values['outage-ms'] !== undefined)
    faults.outage = outageFor(num('--outage-ms', values['outage-ms'])).outage;
  if (values['rate-reset'] !== undefined) faults.rateReset = num('--rate-reset', values['rate-reset']);
  if (values['rate-truncate'] !== undefined)
    faults.rateTruncate = num('--rate-truncate', values['rate-truncate']);
  if (values['delay-ms'] !== undefined) faults.delayMs = num('--delay-ms', values['delay-ms']);
  if (values['stable-order']) faults.stableOrder = true;
  if (values.drift !== undefined) faults.driftInsertPerRequest = num('--drift', values.drift);
  resolveFaults(faults);
  const stale = values['stale-totals'];
  if (stale !== undefined && !['floor-pages', 'lag', 'off'].includes(stale))
    throw invalid(`--stale-totals must be floor-pages, lag or off, got '${stale}'`);
  const poisonRecords: PoisonConfig = {};
  if (values['poison-count'] !== undefined)
    poisonRecords.count = int('--poison-count', values['poison-count'], 0, 1e6);
  if (values['poison-rate'] !== undefined) {
    poisonRecords.rate = num('--poison-rate', values['poison-rate']);
    if (poisonRecords.rate < 0 || poisonRecords.rate > 10)
      throw invalid(`--poison-rate must be a number in 0..10, got '${values['poison-rate']}'`);
  }
  const traffic = values.traffic;
  if (traffic !== undefined && !(EMULATOR_TRAFFIC as readonly string[]).includes(traffic))
    throw invalid(`--traffic must be ${EMULATOR_TRAFFIC.join(' or ')}, got '${traffic}'`);
  const liveShape = values['live-shape'];
  if (liveShape !== undefined && !(LIVE_SHAPES as readonly string[]).includes(liveShape))
    throw invalid(`--live-shape must be ${LIVE_SHAPES.join(' or ')}, got '${liveShape}'`);
  let scale: number | undefined;
  if (values.scale !== undefined) {
    scale = num('--scale', values.scale);
    if (scale <= 0) throw invalid(`--scale must be a positive number, got '${values.scale}'`);
  }
  return {
    ...(scale === undefined ? {} : { scale }),
    ...(traffic === undefined ? {} : { traffic: traffic as EmulatorTraffic }),
    ...(liveShape === undefined ? {} : { liveShape: liveShape as LiveShape }),
    ...(stale === undefined ? {} : { staleTotals: stale as 'floor-pages' | 'lag' | 'off' }),
    ...(values['stale-lag-ms'] === undefined
      ? {}
      : { staleLagMs: int('--stale-lag-ms', values['stale-lag-ms'], 0, 1e12) }),
    ...(Object.keys(poisonRecords).length === 0 ? {} : { poisonRecords }),
    port: values.port === undefined ? 8080 : int('--port', values.port, 0, 65_535),
    host: values.host ?? '127.0.0.1',
    seed: values.seed ?? 1,
    windowDays:
      values['window-days'] === undefined ? 60 : int('--window-days', values['window-days'], 1, 3650),
    maxPageSize:
      values['max-page-size'] === undefined ? 2000 : int('--max-page-size', values['max-page-size'], 1, 1e6),
    clock: clockFrom(values.now, values.rate),
    faults,
  };
}

function clockFrom(now: string | undefined, rate: string | undefined): EmulatorClock {
  const start = now === undefined ? undefined : Date.parse(now);
  if (start !== undefined && Number.isNaN(start))
    throw invalid(`--now must be an ISO 8601 instant, got '${now}'`);
  if (rate !== undefined) {
    const r = num('--rate', rate);
    if (r <= 0) throw invalid(`--rate must be a positive number, got '${rate}'`);
    return acceleratedClock({ start: start ?? Date.now(), rate: r });
  }
  return start === undefined ? realClock() : fixedClock(start);
}

function num(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw invalid(`${flag} must be a number, got '${raw}'`);
  return n;
}

function int(flag: string, raw: string, min: number, max: number): number {
  const n = num(flag, raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw invalid(`${flag} must be an integer in ${min}..${max}, got '${raw}'`);
  return n;
}

function invalid(message: string): ArchiverError {
  return new ArchiverError('CONFIG_INVALID', message);
}

/** One line saying which data and upstream flaws are in effect, so a reproduction is self-describing. */
function describeData(options: Exclude<ReturnType<typeof parseFlags>, 'help'>): string {
  const parts = [`seed ${options.seed}`, `window ${options.windowDays} days`, `scale ${options.scale ?? 1}`];
  if (options.traffic === 'team') parts.push('traffic: team');
  if ((options.liveShape ?? DEFAULT_LIVE_SHAPE) !== DEFAULT_LIVE_SHAPE)
    parts.push(`live shape: ${options.liveShape}`);
  if (options.staleTotals !== undefined && options.staleTotals !== 'off') {
    parts.push(`stale totals: ${options.staleTotals}`);
  }
  const poison = options.poisonRecords;
  if (poison?.count !== undefined) parts.push(`poison: ${poison.count} per day`);
  else if (poison?.rate !== undefined) parts.push(`poison: ${poison.rate} x volume per day`);
  if (options.faults.stableOrder) parts.push('stable order');
  return parts.join(', ');
}

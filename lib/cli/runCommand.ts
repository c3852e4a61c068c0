import {
  archiveOptionsFromConfig,
  type Config,
  isDeadLocalHolder,
  loadConfig,
  preflight,
  type RunSummary,
  runArchive,
  windowStartOf,
} from '../archive/index.ts';
import {
  ArchiverError,
  budgetFromRemaining,
  type Clock,
  holdProcessLiveness,
  incarnationLiveness,
  isDay,
  type Logger,
  offsetClock,
  systemClock,
  toDay,
} from '../foundation/index.ts';
import { buildApi, buildStores, keysDirOf, loadCliKeys, localDestDir } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, type StderrLines, stderrLines, withoutRunFinished } from './cliLog.ts';
import { EXIT_OK, EXIT_PARTIAL } from './exitCodes.ts';
import { failedDaysOf, formatSummary } from './formatSummary.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';
import { progressReporter } from './progressReporter.ts';
import { queryCommandLine } from './queryCommand.ts';

export interface RunContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  apiKey: string;
  onlyDays?: string[];
  /** stderr shared by logs and progress. */
  lines: StderrLines;
  /** `--quiet`: no progress, no notices. */
  quiet: boolean;
}

/** What a command that calls the API needs: config, clock, logger and the key. */
export interface ApiContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  apiKey: string;
  /** stderr shared by logs and progress. */
  lines: StderrLines;
}

/**
 * Config, clock (`--now`), logger and the key (only from the environment), with no I/O at all; without
 * a key, `CONFIG_INVALID`. `readsOnly`: a command that writes nothing (`active`) needs no state store.
 */
export function apiContext(
  flags: CliFlags,
  io: CliIo,
  overrides: { baseUrl?: string; apiKey?: string; readsOnly?: boolean } = {},
): ApiContext {
  const config = loadConfig({
    flags: { ...flags.values, ...(overrides.baseUrl ? { baseUrl: overrides.baseUrl } : {}) },
    env: io.env,
    ...(overrides.readsOnly ? { readsOnly: true } : {}),
  });
  const now = parseNow(flags.values.now);
  const clock = now ? offsetClock(now) : systemClock;
  const lines = stderrLines(io);
  const logger = cliLogger(lines, config.logLevel, resolveLogFormat(config.logFormat, io));
  const apiKey = overrides.apiKey ?? config.apiKey;
  if (!apiKey) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'TUNNEL_API_KEY is not set: create an API key in the dashboard (paid plan) and export TUNNEL_API_KEY, or use `npm start` for the local emulator',
    );
  }
  return { config, clock, logger, apiKey, lines };
}

/**
 * Resolves and validates everything a `run`-like command needs, with no I/O at all: config, clock,
 * key, `--days` (format, and inside the window computed from the clock). A bad invocation therefore
 * fails before any folder, state or connection exists. The key comes only from the environment.
 */
export function runContext(
  flags: CliFlags,
  io: CliIo,
  overrides: { baseUrl?: string; apiKey?: string } = {},
): RunContext {
  const { config, clock, logger, apiKey, lines } = apiContext(flags, io, overrides);
  keysDirOf(config, io.env); // an s3:// destination needs ARCHIVE_KEYS_DIR: said before anything is written
  const days =
    typeof flags.values.days === 'string' ? flags.values.days.split(',').map((d) => d.trim()) : undefined;
  for (const d of days ?? [])
    if (!isDay(d))
      throw new ArchiverError('CONFIG_INVALID', `--days must be YYYY-MM-DD[,YYYY-MM-DD...], got '${d}'`);
  const today = toDay(clock.now());
  const windowStart = windowStartOf(today, config.windowDays);
  for (const d of days ?? []) {
    if (d < windowStart || d > today) {
      throw new ArchiverError(
        'OUTSIDE_WINDOW',
        `--days ${d} is outside the ${config.windowDays}-day window ${windowStart}..${today}: the API no longer (or not yet) serves it`,
      );
    }
  }
  return {
    config,
    clock,
    logger,
    apiKey,
    lines,
    quiet: flags.values.quiet === true,
    ...(days ? { onlyDays: days } : {}),
  };
}

/** Exit code of a finished run: 7 when days failed (the run went on without them), else 0. */
export function exitCodeOfRun(summary: RunSummary): number {
  return failedDaysOf(summary).length > 0 ? EXIT_PARTIAL : EXIT_OK;
}

/** One archiving run from the CLI: preflight (nothing written on a bad key), stores, run, summary. */
export async function executeRun(ctx: RunContext, io: CliIo, json: boolean): Promise<RunSummary> {
  const { config, clock } = ctx;
  const logger = json ? ctx.logger : withoutRunFinished(ctx.logger);
  const api = buildApi(config, ctx.apiKey, clock, logger);
  try {
    await preflight(api, toDay(clock.now()));
    const keys = await loadCliKeys(config, io.env, logger);
    // Held until the process ends: how a later run on this host knows, from the kernel, that this one died.
    await holdProcessLiveness();
    const stores = await buildStores(config, logger, { createStateTable: true });
    try {
      const progress = progressReporter(ctx.lines, Boolean(io.stderr.isTTY));
      // The run's one deadline: --max-run-ms from now, less the one reserve (--deadline-reserve-ms).
      const budget = budgetFromRemaining(clock, config.maxRunMs, config.deadlineReserveMs);
      // A failure must not land on the progress bar's line: end it whatever happens.
      const ports = { api, objects: stores.objects, state: stores.state };
      const { api: runApi, objects, state } = io.wrapRunPorts ? io.wrapRunPorts(ports) : ports;
      const summary = await runArchive(
        {
          api: runApi,
          objects,
          state,
          clock,
          logger,
          ...keys,
          // A run killed on this machine (Ctrl-C, a crash) does not block the next one for the lease's TTL.
          isLeaseHolderDead: isDeadLocalHolder,
          // A killed run's temp folder is judged by the kernel too (its liveness lock), not by its pid alone.
          incarnationLiveness,
          ...(json || ctx.quiet ? {} : { onProgress: progress.onProgress }),
        },
        archiveOptionsFromConfig(config, {
          budget,
          ...(ctx.onlyDays ? { onlyDays: ctx.onlyDays } : {}),
        }),
      ).finally(() => progress.finish());
      io.stdout.write(json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
      return summary;
    } finally {
      await stores.close();
    }
  } finally {
    await api.close();
  }
}

/** `run`: validate everything, then one run; exit 7 when some days failed. */
export async function runCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const summary = await executeRun(runContext(flags, io), io, flags.values.json === true);
  return exitCodeOfRun(summary);
}

/** Where the archive is, and a command that queries it as printed. */
export function whereToLook(config: Config, defaultDest: string): string {
  const dir = localDestDir(config.dest);
  if (!dir)
    return `Parquet files are under ${config.dest.replace(/\/?$/, '/')}history/ (query them with Athena).\n`;
  return [
    `Archive: ${dir}/history/dt=YYYY-MM-DD/*.parquet`,
    'Query it with SQL (DuckDB, the same table names as Athena):',
    `  ${queryCommandLine(config.dest === defaultDest ? undefined : config.dest)}`,
    '',
  ].join('\n');
}

import { type Clock, systemClock } from '../clock/clock.ts';
import { isDay, toDay } from '../clock/day.ts';
import { offsetClock } from '../clock/offsetClock.ts';
import { archiveOptionsFromConfig } from '../config/archiveOptionsFromConfig.ts';
import { type Config, loadConfig } from '../config/loadConfig.ts';
import { preflight } from '../engine/preflight.ts';
import { runArchive } from '../engine/runArchive.ts';
import type { RunSummary } from '../engine/runTypes.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import { jsonLineLogger, type Logger } from '../log/logger.ts';
import { buildApi, buildStores, localDestDir } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { formatSummary } from './formatSummary.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';
import { progressReporter } from './progressReporter.ts';

export interface RunContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  apiKey: string;
  onlyDays?: string[];
}

/** Resolves config, clock and logger for `run`-like commands. The key comes only from the environment. */
export function runContext(
  flags: CliFlags,
  io: CliIo,
  overrides: { baseUrl?: string; apiKey?: string } = {},
): RunContext {
  const config = loadConfig({
    flags: { ...flags.values, ...(overrides.baseUrl ? { baseUrl: overrides.baseUrl } : {}) },
    env: io.env,
  });
  const now = parseNow(flags.values.now);
  const clock = now ? offsetClock(now) : systemClock;
  const logger = jsonLineLogger(config.logLevel, (l) => io.stderr.write(`${l}\n`));
  const apiKey = overrides.apiKey ?? config.apiKey;
  if (!apiKey) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'TUNNEL_API_KEY is not set: create an API key in the dashboard (paid plan) and export TUNNEL_API_KEY, or use `npm start` for the local emulator',
    );
  }
  const days =
    typeof flags.values.days === 'string' ? flags.values.days.split(',').map((d) => d.trim()) : undefined;
  for (const d of days ?? [])
    if (!isDay(d))
      throw new ArchiverError('CONFIG_INVALID', `--days must be YYYY-MM-DD[,YYYY-MM-DD...], got '${d}'`);
  return { config, clock, logger, apiKey, ...(days ? { onlyDays: days } : {}) };
}

/** One archiving run from the CLI: preflight (nothing written on a bad key), stores, run, summary. */
export async function executeRun(ctx: RunContext, io: CliIo, json: boolean): Promise<RunSummary> {
  const { config, clock, logger } = ctx;
  const api = buildApi(config, ctx.apiKey, clock, logger);
  try {
    await preflight(api, toDay(clock.now()));
    const stores = await buildStores(config, logger);
    try {
      const progress = progressReporter(io);
      const deadline = config.maxRunMs ? new Date(clock.now().getTime() + config.maxRunMs) : undefined;
      const summary = await runArchive(
        {
          api,
          objects: stores.objects,
          state: stores.state,
          clock,
          logger,
          ...(json ? {} : { onProgress: progress.onProgress }),
        },
        archiveOptionsFromConfig(config, {
          ...(deadline ? { deadline } : {}),
          ...(ctx.onlyDays ? { onlyDays: ctx.onlyDays } : {}),
        }),
      );
      progress.finish();
      io.stdout.write(json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
      return summary;
    } finally {
      await stores.close();
    }
  } finally {
    await api.close();
  }
}

/** Where the archive is and a query to try on it. */
export function whereToLook(config: Config): string {
  const dir = localDestDir(config.dest);
  if (!dir)
    return `Parquet files are under ${config.dest.replace(/\/?$/, '/')}history/ (query them with Athena).\n`;
  return [
    `Archive: ${dir}/history/dt=YYYY-MM-DD/*.parquet`,
    'Try it with DuckDB:',
    `  duckdb -c "SELECT dt, mode, count(*) AS sessions FROM read_parquet('${dir}/history/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY dt DESC, sessions DESC LIMIT 20"`,
    '',
  ].join('\n');
}

import type { Config } from './loadConfig.ts';

/**
 * The engine's settings that come from config. The engine's `ArchiveOptions` has these members and a
 * few a caller supplies (the deadline budget, onlyDays, tmpDir); config sits below the engine, so it
 * names the shape itself.
 */
export type EngineSettings = Pick<
  Config,
  | 'pageSize'
  | 'pageConcurrency'
  | 'dayConcurrency'
  | 'maxPasses'
  | 'rescanAges'
  | 'windowDays'
  | 'rowGroupSize'
  | 'parquetEncoder'
  | 'leaseTtlMs'
> & { tokenPolicy: Config['tokenValues']; maxPagesPerDay: number | undefined };

/** The engine's options from resolved config; `extra` (the deadline budget, onlyDays, tmpDir) comes from the caller. */
export function archiveOptionsFromConfig<Extra extends object = Record<never, never>>(
  config: Config,
  extra: Extra = {} as Extra,
): EngineSettings & Extra {
  return {
    tokenPolicy: config.tokenValues,
    pageSize: config.pageSize,
    pageConcurrency: config.pageConcurrency,
    dayConcurrency: config.dayConcurrency,
    maxPasses: config.maxPasses,
    rescanAges: config.rescanAges,
    maxPagesPerDay: config.maxPagesPerDay,
    windowDays: config.windowDays,
    rowGroupSize: config.rowGroupSize,
    parquetEncoder: config.parquetEncoder,
    leaseTtlMs: config.leaseTtlMs,
    ...extra,
  };
}

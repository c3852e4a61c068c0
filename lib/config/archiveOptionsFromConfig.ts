import type { ArchiveOptions } from '../run/runTypes.ts';
import type { Config } from './loadConfig.ts';

/** The engine's options from resolved config; `extra` (the deadline budget, onlyDays, tmpDir) comes from the caller. */
export function archiveOptionsFromConfig(
  config: Config,
  extra: Partial<ArchiveOptions> = {},
): ArchiveOptions {
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

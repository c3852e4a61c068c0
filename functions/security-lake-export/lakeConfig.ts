import type { Config } from '../../lib/config/loadConfig.ts';
import { ArchiverError } from '../../lib/errors/archiverError.ts';
import { lakeSourcesSchema } from '../../lib/ocsf/lakeSourceSchema.ts';
import type { LakeSource } from '../../lib/ocsf/securityLakeLayout.ts';

export interface LakeConfig {
  sources: LakeSource[];
  settleHours: number;
  maxHours: number;
  lookbackDays: number;
}

/**
 * The function's settings from the parsed config (lib/config/configSpec.ts names, bounds and defaults
 * them): the sources' shape is checked here, against the schema the stack's `securityLake` context uses;
 * a bad or missing one is `CONFIG_INVALID` naming `SECURITY_LAKE_SOURCES`.
 */
export function lakeConfig(config: Config): LakeConfig {
  if (config.securityLakeSources === undefined)
    throw new ArchiverError('CONFIG_INVALID', 'Set SECURITY_LAKE_SOURCES (the Security Lake custom sources)');
  const parsed = lakeSourcesSchema.safeParse(JSON.parse(config.securityLakeSources));
  if (!parsed.success)
    throw new ArchiverError('CONFIG_INVALID', `SECURITY_LAKE_SOURCES: ${parsed.error.message}`, {
      cause: parsed.error,
    });
  return {
    sources: parsed.data.map((s) => ({
      cls: s.cls,
      location: { bucket: s.bucket, prefix: s.prefix },
      roleArn: s.roleArn,
      externalId: s.externalId,
    })),
    settleHours: config.securityLakeSettleHours,
    maxHours: config.securityLakeMaxHours,
    lookbackDays: config.securityLakeLookbackDays,
  };
}

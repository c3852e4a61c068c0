import { lakeSourcesSchema } from '../../lib/analytics/ocsf/lakeSourceSchema.ts';
import type { LakeSource } from '../../lib/analytics/ocsf/securityLakeLayout.ts';
import type { Config } from '../../lib/archive/config/loadConfig.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** A source as configured: its external id is still the secret that holds it (`withExternalIds` reads it). */
export type ConfiguredLakeSource = Omit<LakeSource, 'externalId'> & { externalIdSecret: string };

export interface LakeConfig<S = ConfiguredLakeSource> {
  sources: S[];
  settleHours: number;
  maxHours: number;
  lookbackDays: number;
}

/**
 * The function's settings from the parsed config (lib/archive/config/configSpec.ts names, bounds and defaults
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
      externalIdSecret: s.externalIdSecret,
    })),
    settleHours: config.securityLakeSettleHours,
    maxHours: config.securityLakeMaxHours,
    lookbackDays: config.securityLakeLookbackDays,
  };
}

/**
 * The sources with their external ids, each read from its secret (`read`: GetSecretValue's string) once, at
 * the function's start. An empty or missing value is `CONFIG_INVALID` naming the secret, never its value.
 */
export async function withExternalIds(
  config: LakeConfig,
  read: (secretId: string) => Promise<string | undefined>,
): Promise<LakeConfig<LakeSource>> {
  const sources = await Promise.all(
    config.sources.map(async ({ externalIdSecret, ...source }) => {
      const externalId = (await read(externalIdSecret))?.trim() ?? '';
      if (externalId.length < 2)
        throw new ArchiverError(
          'CONFIG_INVALID',
          `Secret '${externalIdSecret}' holds no external id for the ${source.cls} source: aws secretsmanager put-secret-value --secret-id '${externalIdSecret}' --secret-string '<the external id Security Lake was given>'`,
        );
      return { ...source, externalId };
    }),
  );
  return { ...config, sources };
}

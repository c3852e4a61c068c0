import * as z from 'zod';
import { ArchiverError } from '../../lib/errors/archiverError.ts';
import { lakeSourcesSchema } from '../../lib/ocsf/lakeSourceSchema.ts';
import type { LakeSource } from '../../lib/ocsf/securityLakeLayout.ts';

const envSchema = z.object({
  SECURITY_LAKE_SOURCES: z.string().transform((s, ctx) => {
    try {
      return lakeSourcesSchema.parse(JSON.parse(s));
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `SECURITY_LAKE_SOURCES: ${(e as Error).message}` });
      return z.NEVER;
    }
  }),
  SETTLE_HOURS: z.coerce.number().int().min(0).default(6),
  MAX_HOURS: z.coerce.number().int().min(1).default(48),
  LOOKBACK_DAYS: z.coerce.number().int().min(0).default(7),
});

export interface LakeConfig {
  sources: LakeSource[];
  settleHours: number;
  maxHours: number;
  lookbackDays: number;
}

/** The function's settings, parsed once; a bad one is `CONFIG_INVALID` naming it. */
export function parseLakeConfig(env: Record<string, string | undefined>): LakeConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    throw new ArchiverError('CONFIG_INVALID', `Security Lake export settings: ${parsed.error.message}`, {
      cause: parsed.error,
    });
  const e = parsed.data;
  return {
    sources: e.SECURITY_LAKE_SOURCES.map((s) => ({
      cls: s.cls,
      location: { bucket: s.bucket, prefix: s.prefix },
      roleArn: s.roleArn,
      externalId: s.externalId,
    })),
    settleHours: e.SETTLE_HOURS,
    maxHours: e.MAX_HOURS,
    lookbackDays: e.LOOKBACK_DAYS,
  };
}

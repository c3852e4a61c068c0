import { z } from 'zod';
import { ArchiverError } from '../errors/archiverError.ts';
import { TOKEN_POLICIES } from '../records/archiveRow.ts';
import { SETTINGS, type SettingKey } from './configSpec.ts';

const intIn = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const httpUrl = (name: string) =>
  z.string().refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), {
    error: (i) => `${name} must be an http(s) URL, got '${String(i.input)}'`,
  });

export const configSchema = z.object({
  apiKey: z.string().min(1, 'TUNNEL_API_KEY is empty').optional(),
  apiKeySecretId: z.string().min(1).optional(),
  baseUrl: httpUrl('TUNNEL_API_BASE_URL'),
  dest: z.string().refine((s) => /^(file:\/\/.+|s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?)$/.test(s), {
    error: (i) => `ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got '${String(i.input)}'`,
  }),
  state: z
    .string()
    .refine((s) => /^dynamodb:\/\/[A-Za-z0-9_.-]{3,255}$/.test(s), {
      error: (i) => `ARCHIVE_STATE must be dynamodb://table, got '${String(i.input)}'`,
    })
    .optional(),
  tokenValues: z.enum(TOKEN_POLICIES, {
    error: (i) => `TOKEN_VALUES must be keep, hash or drop, got '${String(i.input)}'`,
  }),
  pageSize: intIn('PAGE_SIZE', 1, 10_000),
  pageConcurrency: intIn('PAGE_CONCURRENCY', 1, 16),
  maxPasses: intIn('MAX_PASSES', 1, 50),
  rescanAges: z.string().transform((s, ctx) => {
    const ages = s
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map(Number);
    if (ages.some((a) => !Number.isInteger(a) || a < 1)) {
      ctx.addIssue({
        code: 'custom',
        message: `RESCAN_AGES must be comma-separated whole days >= 1, got '${s}'`,
      });
      return z.NEVER;
    }
    return [...new Set(ages)].sort((a, b) => a - b);
  }),
  maxPagesPerDay: intIn('MAX_PAGES_PER_DAY', 1, 1_000_000),
  windowDays: intIn('WINDOW_DAYS', 2, 366),
  rowGroupSize: intIn('ROW_GROUP_SIZE', 100, 10_000_000),
  leaseTtlMs: intIn('LEASE_TTL_MS', 1_000, 86_400_000),
  deadlineReserveMs: intIn('DEADLINE_RESERVE_MS', 0, 3_600_000),
  maxRunMs: intIn('MAX_RUN_MS', 1, 86_400_000).optional(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error'], {
    error: (i) => `LOG_LEVEL must be debug, info, warn or error, got '${String(i.input)}'`,
  }),
});

export type Config = z.infer<typeof configSchema>;

export interface ConfigInput {
  /** CLI flags by setting key or by flag name (`base-url`); they win over the environment. */
  flags?: Record<string, unknown>;
  env: Record<string, string | undefined>;
}

/**
 * Resolves every setting once: flags, then environment, then defaults. Throws `CONFIG_INVALID`
 * with one actionable line per problem (the zod issues are the `cause`).
 */
export function loadConfig(input: ConfigInput): Config {
  const raw: Partial<Record<SettingKey, unknown>> = {};
  for (const s of SETTINGS) {
    const flag = 'flag' in s ? (input.flags?.[s.flag] ?? input.flags?.[s.key]) : undefined;
    const env = input.env[s.env];
    const value = flag ?? (env === undefined || env === '' ? undefined : env) ?? s.default;
    if (value !== undefined) raw[s.key] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => i.message).join('; ');
    throw new ArchiverError('CONFIG_INVALID', `Invalid configuration: ${message}`, { cause: parsed.error });
  }
  return parsed.data;
}

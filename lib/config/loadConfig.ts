import * as z from 'zod';
import { ArchiverError } from '../errors/archiverError.ts';
import { PARQUET_ENCODERS } from '../parquet/historyParquetFile.ts';
import { PARQUET_COMPRESSIONS } from '../parquet/parquetCompression.ts';
import { TOKEN_POLICIES } from '../records/archiveRow.ts';
import { cleartextProblem } from '../url/cleartextUrl.ts';
import { parseDestUrl, parseStateUrl } from '../url/storeUrl.ts';
import { SETTINGS, type SettingKey } from './configSpec.ts';
import { ROLE_ARN } from './roleArn.ts';

/** How a setting is named in a message: the flag when the value came from one, else its variable. */
export type SettingNames = Record<SettingKey, string>;

const ENV_NAMES = Object.fromEntries(SETTINGS.map((s) => [s.key, s.env])) as SettingNames;

const shown = (v: unknown): string => `'${String(v)}'`;

/** A whole number in [min, max]; the message names the setting and echoes the value as given. */
const intIn = (name: string, min: number, max: number) =>
  z.unknown().transform((raw, ctx) => {
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
    const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
    let message: string | undefined;
    if (!Number.isSafeInteger(n))
      message = `${name} must be an integer from ${min} to ${max}, got ${shown(raw)}`;
    else if (n < min) message = `${name} must be at least ${min}, got ${shown(raw)}`;
    else if (n > max) message = `${name} must be at most ${max}, got ${shown(raw)}`;
    if (message === undefined) return n;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

const oneOf = <const T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z.enum(values, {
    error: (i) =>
      `${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got ${shown(i.input)}`,
  });

const httpUrl = (name: string) =>
  z.string().refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), {
    error: (i) => `${name} must be an http(s) URL, got ${shown(i.input)}`,
  });

/** An http(s) URL that a secret is sent to: `http://` only for a loopback host (`cleartextProblem`). */
const secretBearingUrl = (name: string) =>
  httpUrl(name).superRefine((s, ctx) => {
    const problem = cleartextProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: `${name} ${problem}, got ${shown(s)}` });
  });

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

function isJsonArray(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

/** Rewrites a URL parser's CONFIG_INVALID message so it names the flag when the value came from one. */
const viaParser = (name: string, envName: string, parse: (s: string) => unknown) =>
  z.string().superRefine((s, ctx) => {
    try {
      parse(s);
    } catch (error) {
      if (!ArchiverError.is(error, 'CONFIG_INVALID')) throw error;
      ctx.addIssue({ code: 'custom', message: error.message.replace(envName, name) });
    }
  });

/** The one schema of every setting; `names` says how each is named in messages. */
export function buildConfigSchema(names: SettingNames = ENV_NAMES, readsOnly = false) {
  return z
    .object({
      apiKey: z.string().min(1, `${names.apiKey} is empty`).optional(),
      apiKeySecretId: z.string().min(1).optional(),
      baseUrl: secretBearingUrl(names.baseUrl),
      dest: viaParser(names.dest, 'ARCHIVE_DEST', (s) => parseDestUrl(s)),
      state: viaParser(names.state, 'ARCHIVE_STATE', parseStateUrl).optional(),
      keysDir: z.string().min(1, `${names.keysDir} is empty`).optional(),
      tokenValues: oneOf(names.tokenValues, TOKEN_POLICIES),
      pageSize: intIn(names.pageSize, 1, 10_000),
      pageConcurrency: intIn(names.pageConcurrency, 1, 16),
      dayConcurrency: intIn(names.dayConcurrency, 1, 16),
      maxPasses: intIn(names.maxPasses, 1, 500),
      rescanAges: z.string().transform((s, ctx) => {
        const ages = s
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)
          .map(Number);
        if (ages.some((a) => !Number.isInteger(a) || a < 1)) {
          ctx.addIssue({
            code: 'custom',
            message: `${names.rescanAges} must be comma-separated whole days >= 1, got '${s}'`,
          });
          return z.NEVER;
        }
        return [...new Set(ages)].sort((a, b) => a - b);
      }),
      maxPagesPerDay: intIn(names.maxPagesPerDay, 1, 10_000_000).optional(),
      windowDays: intIn(names.windowDays, 2, 366),
      rowGroupSize: intIn(names.rowGroupSize, 100, 10_000_000),
      parquetEncoder: oneOf(names.parquetEncoder, PARQUET_ENCODERS),
      leaseTtlMs: intIn(names.leaseTtlMs, 1_000, 86_400_000),
      deadlineReserveMs: intIn(names.deadlineReserveMs, 0, 3_600_000),
      maxRunMs: intIn(names.maxRunMs, 1, 86_400_000).optional(),
      logLevel: oneOf(names.logLevel, ['debug', 'info', 'warn', 'error']),
      logFormat: oneOf(names.logFormat, ['auto', 'human', 'json']),
      codec: oneOf(names.codec, PARQUET_COMPRESSIONS).optional(),
      awsEndpointUrlS3: httpUrl(names.awsEndpointUrlS3).optional(),
      digestSigningKeyId: z.string().min(1).optional(),
      tokenKeySecretId: z.string().min(1).optional(),
      checksumJobRoleArn: z
        .string()
        .regex(ROLE_ARN, {
          message: `${names.checksumJobRoleArn} must be an IAM role ARN`,
        })
        .optional(),
      snapshotIntervalMinutes: intIn(names.snapshotIntervalMinutes, 1, 1440),
      snapshotCommitMinutes: intIn(names.snapshotCommitMinutes, 0, 1440),
      detectionSettings: z
        .string()
        .refine((s) => isJsonObject(s), { error: `${names.detectionSettings} must be a JSON object` })
        .optional(),
      detectionsDir: z.string().min(1).optional(),
      workgroup: z.string().min(1).optional(),
      database: z.string().min(1).optional(),
      findingsTopicArn: z
        .string()
        .regex(/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w.-]+$/, {
          message: `${names.findingsTopicArn} must be an SNS topic ARN`,
        })
        .optional(),
      scheduleMinutes: intIn(names.scheduleMinutes, 1, 1440),
      securityLakeSources: z
        .string()
        .refine((s) => isJsonArray(s), { error: `${names.securityLakeSources} must be a JSON array` })
        .optional(),
      securityLakeSettleHours: intIn(names.securityLakeSettleHours, 0, 72),
      securityLakeMaxHours: intIn(names.securityLakeMaxHours, 1, 744),
      securityLakeLookbackDays: intIn(names.securityLakeLookbackDays, 0, 60),
    })
    .superRefine((c, ctx) => {
      if (!readsOnly && c.state === undefined && c.dest.trim().startsWith('s3://')) {
        ctx.addIssue({
          code: 'custom',
          path: ['state'],
          message: `${names.state} (dynamodb://TABLE) is required when ${names.dest} is s3:// (got '${c.dest}'); only a local folder can keep its state beside the data`,
        });
      }
    });
}

export const configSchema = buildConfigSchema();

export type Config = z.infer<typeof configSchema>;

export interface ConfigInput {
  /** CLI flags by setting key or by flag name (`base-url`); they win over the environment. */
  flags?: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** For a command that only reads the archive (`report`): an `s3://` destination needs no state then. */
  readsOnly?: boolean;
}

/**
 * Resolves every setting once: flags, then environment, then defaults. Throws `CONFIG_INVALID`
 * with one actionable line per problem, naming the flag or variable the bad value came from and the
 * value itself (the zod issues are the `cause`). Pure: it reads no file and opens no connection.
 */
export function loadConfig(input: ConfigInput): Config {
  const raw: Partial<Record<SettingKey, unknown>> = {};
  const names = { ...ENV_NAMES };
  for (const s of SETTINGS) {
    const flag = 'flag' in s ? (input.flags?.[s.flag] ?? input.flags?.[s.key]) : undefined;
    if (flag !== undefined && 'flag' in s) names[s.key] = `--${s.flag}`;
    const env = input.env[s.env];
    const value = flag ?? (env === undefined || env === '' ? undefined : env) ?? s.default;
    if (value !== undefined) raw[s.key] = value;
  }
  const parsed = buildConfigSchema(names, input.readsOnly).safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => i.message).join('; ');
    throw new ArchiverError('CONFIG_INVALID', `Invalid configuration: ${message}`, { cause: parsed.error });
  }
  return parsed.data;
}

import * as z from 'zod';
import { lakeSourcesSchema } from '../lib/analytics/ocsf/lakeSourceSchema.ts';
import { ROLE_ARN } from '../lib/archive/config/roleArn.ts';
import { TOKEN_POLICIES, type TokenPolicy } from '../lib/archive/records/archiveRow.ts';
import { ArchiverError } from '../lib/foundation/errors/archiverError.ts';

/** Deploy-time choices, read from CDK context (`cdk.json` or `-c key=value`). */
export interface StackSettings {
  /** EventBridge schedule expression. Default `rate(6 hours)`: a missed run is retried within hours. */
  schedule: string;
  /** Existing secret (name or ARN) holding the API key; default: the stack creates one. */
  apiKeySecret?: string;
  /** E-mail address subscribed to the alarm topic (the recipient must confirm it). */
  alarmEmail?: string;
  /** Object Lock default retention in days; unset = no Object Lock. Can only be enabled on a new bucket. */
  objectLockDays?: number;
  objectLockMode: 'GOVERNANCE' | 'COMPLIANCE';
  /** X-Ray active tracing for the function. */
  tracing: boolean;
  /** TOKEN_VALUES for the function: keep | hash | drop. */
  tokenValues: TokenPolicy;
  /** Items the fan-out's map walks at once (the API's rate limit is the ceiling: keep it small). */
  fanoutConcurrency: number;
  /** Pages of one map item: a day of more pages is walked in ranges of this many, in parallel. */
  fanoutRangePages: number;
  /** Detection overrides (thresholds, allowlists, time zone), as `tunnel-archiver detect --settings` reads them. */
  detections?: unknown;
  /** Amazon Security Lake custom sources (off when unset): see docs/security-lake.md. */
  securityLake?: SecurityLakeSettings;
  /**
   * The one role (ARN, no wildcard) the bucket policy lets delete under the write-once prefixes and change
   * the bucket's policy or lifecycle, beside the CloudFormation execution role's policy and lifecycle
   * updates. Unset: nobody (docs/operations.md, Threat model).
   */
  breakGlassRoleArn?: string;
  /** Why the alarm topic has no e-mail subscriber (acknowledges the synth warning): e.g. "paged via PagerDuty". */
  alarmsUnsubscribed?: string;
  /** Reserve each function's concurrency (about 30 in all; needs a raised quota). Default off. */
  reservedConcurrency: boolean;
  /** TUNNEL_API_BASE_URL of the functions that call the API; unset: the documented Pinggy endpoint. */
  apiBaseUrl?: string;
  /** WINDOW_DAYS of the functions that walk the API: the days its history keeps (unset: 60). */
  windowDays?: number;
  /** SNAPSHOT_COMMIT_MINUTES: how long live rows are held before one file is committed (unset: 60). */
  snapshotCommitMinutes?: number;
}

/** The `securityLake` context: the registered custom sources, the lake's own key if any, the settling delay. */
export const securityLakeSchema = z.strictObject({
  sources: lakeSourcesSchema,
  kmsKeyArn: z
    .string()
    .regex(/^arn:aws[\w-]*:kms:[a-z0-9-]+:\d{12}:key\/[\w-]+$/, 'kmsKeyArn must be a KMS key ARN')
    .optional(),
  settleHours: z.number().int().min(0).max(72).optional(),
});
export type SecurityLakeSettings = z.infer<typeof securityLakeSchema>;

/** An object in cdk.json, or JSON text with -c key='{...}'. */
const jsonContext = (key: string) =>
  z.union([
    z.record(z.string(), z.unknown()),
    z.string().transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: `${key} must be JSON` });
        return z.NEVER;
      }
    }),
  ]);

/** `-c key=value` arrives as a string, cdk.json values as JSON: accept both, reject the rest loudly. */
const boolish = z.union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')]);
const optionalText = z
  .string()
  .trim()
  .transform((s) => (s === '' ? undefined : s))
  .optional();

const settingsSchema = z.object({
  schedule: z
    .string()
    .trim()
    .regex(
      /^(rate|cron)\(.+\)$/,
      'schedule must be an EventBridge expression like rate(6 hours) or cron(0 */6 * * ? *)',
    )
    .default('rate(6 hours)'),
  apiKeySecret: optionalText,
  alarmEmail: optionalText.refine(
    (s) => s === undefined || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s),
    'alarmEmail must be an e-mail address',
  ),
  objectLockDays: z.coerce.number().int().min(1).max(36_500).optional(),
  objectLockMode: z.enum(['GOVERNANCE', 'COMPLIANCE']).default('GOVERNANCE'),
  tracing: boolish.default(false),
  tokenValues: z.enum(TOKEN_POLICIES).default('hash'),
  fanoutConcurrency: z.coerce.number().int().min(1).max(1000).default(4),
  fanoutRangePages: z.coerce.number().int().min(10).max(100_000).default(500),
  // An object in cdk.json, or JSON text with -c detections='{...}'; checked against the rules in the stack.
  detections: z
    .union([
      z.record(z.string(), z.unknown()),
      z.string().transform((s, ctx) => {
        try {
          return JSON.parse(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'detections must be JSON' });
          return z.NEVER;
        }
      }),
    ])
    .optional(),
  securityLake: jsonContext('securityLake').pipe(securityLakeSchema).optional(),
  breakGlassRoleArn: z
    .string()
    .trim()
    .regex(
      ROLE_ARN,
      'breakGlassRoleArn must be one IAM role ARN (arn:aws:iam::<account>:role/<name>, no wildcard)',
    )
    .exactOptional(),
  alarmsUnsubscribed: z.string().trim().min(1).exactOptional(),
  reservedConcurrency: boolish.default(false),
  windowDays: z.coerce.number().int().min(2).max(366).optional(),
  snapshotCommitMinutes: z.coerce.number().int().min(0).max(1440).optional(),
  apiBaseUrl: optionalText.refine(
    (s) => s === undefined || (/^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s)),
    'apiBaseUrl must be an http(s) URL',
  ),
});

export const SETTING_KEYS = Object.keys(settingsSchema.shape) as (keyof StackSettings)[];

/**
 * Reads and validates every context key at once, so a typo in `-c objectLockDays=3O` fails the synth
 * with a message instead of silently deploying without Object Lock.
 */
export function readStackSettings(tryGetContext: (key: string) => unknown): StackSettings {
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = tryGetContext(key);
    if (value !== undefined && value !== null && value !== '') raw[key] = value;
  }
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'context'}: ${i.message}`);
    throw new ArchiverError('CONFIG_INVALID', `Invalid CDK context: ${lines.join('; ')}`, {
      cause: parsed.error,
    });
  }
  const {
    apiKeySecret,
    alarmEmail,
    objectLockDays,
    detections,
    securityLake,
    apiBaseUrl,
    windowDays,
    snapshotCommitMinutes,
    ...rest
  } = parsed.data;
  return {
    ...rest,
    ...(windowDays === undefined ? {} : { windowDays }),
    ...(snapshotCommitMinutes === undefined ? {} : { snapshotCommitMinutes }),
    ...(apiBaseUrl === undefined ? {} : { apiBaseUrl }),
    ...(securityLake === undefined ? {} : { securityLake }),
    ...(detections === undefined ? {} : { detections }),
    ...(apiKeySecret === undefined ? {} : { apiKeySecret }),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    ...(objectLockDays === undefined ? {} : { objectLockDays }),
  };
}

import type * as z from 'zod';
import { parseDestUrl, parseStateUrl } from '../../foundation/index.ts';
import { PARQUET_ENCODERS } from '../parquet/historyParquetFile.ts';
import { PARQUET_COMPRESSIONS } from '../parquet/parquetCompression.ts';
import { TOKEN_POLICIES } from '../records/archiveRow.ts';
import { ROLE_ARN } from './roleArn.ts';
import {
  dayList,
  httpUrl,
  intIn,
  jsonArrayText,
  jsonObjectText,
  matching,
  oneOf,
  secretBearingUrl,
  text,
  viaParser,
} from './settingSchemas.ts';
import { BARREN_PASSES, DEFAULT_MAX_PASSES, STALLED_PASSES } from './walkLimits.ts';

/** The programs that read settings: the CLI and each Lambda function (its folder under functions/). */
export const READERS = [
  'cli',
  'archive-history',
  'fanout',
  'snapshot-active',
  'detect',
  'security-lake-export',
  'verify-job',
] as const;
export type Reader = (typeof READERS)[number];

const ARCHIVERS = ['cli', 'archive-history', 'fanout'] as const satisfies readonly Reader[];
const API_CALLERS = [...ARCHIVERS, 'snapshot-active'] as const satisfies readonly Reader[];
const FUNCTIONS = [
  'archive-history',
  'fanout',
  'snapshot-active',
  'detect',
] as const satisfies readonly Reader[];

/**
 * Every variable the CLI or a Lambda function reads, once: its CLI flag, default, schema, meaning and
 * readers. `loadConfig` validates each one with its schema (every entry point calls it before any work), and the configuration
 * table in docs/configuration.md is this list, cell by cell (a docs test keeps the two equal).
 */
export interface SettingSpec {
  key: string;
  env: string;
  flag?: string;
  default: string | undefined;
  description: string;
  /**
   * What a value must be, as a zod schema whose messages call the setting `name` (the flag when the value
   * came from one, else the variable): `loadConfig` parses each setting with exactly this, and with nothing
   * else, so a setting is declared here or nowhere.
   */
  schema: (name: string) => z.ZodType;
  /** Who reads it: the CLI, and the functions (the stack sets it for each function listed). */
  readBy: readonly Reader[];
}

export const SETTINGS = [
  {
    key: 'apiKey',
    env: 'TUNNEL_API_KEY',
    default: undefined,
    description:
      'API key (Bearer); never a flag, never logged. Unset: `start` archives the embedded emulator, `verify` checks the archive alone, `run` and `active` exit 2.',
    schema: (n) => text(n).optional(),
    readBy: [...API_CALLERS],
  },
  {
    key: 'apiKeySecretId',
    env: 'TUNNEL_API_KEY_SECRET_ID',
    default: undefined,
    description: 'Lambda only: Secrets Manager secret (name or ARN) holding the API key.',
    schema: () => text().optional(),
    readBy: ['archive-history', 'fanout', 'snapshot-active'],
  },
  {
    key: 'baseUrl',
    env: 'TUNNEL_API_BASE_URL',
    flag: 'base-url',
    default: 'https://dashboard.pinggy.io',
    description: 'Base URL of the tunnel session API.',
    schema: (n) => secretBearingUrl(n),
    readBy: [...API_CALLERS],
  },
  {
    key: 'dest',
    env: 'ARCHIVE_DEST',
    flag: 'dest',
    default: 'file://./archive',
    description: 'Where Parquet goes: file://DIR or s3://bucket/prefix (endpoint: AWS_ENDPOINT_URL_S3).',
    schema: (n) => viaParser(n, 'ARCHIVE_DEST', (s) => parseDestUrl(s)),
    readBy: ['cli', ...FUNCTIONS, 'security-lake-export', 'verify-job'],
  },
  {
    key: 'state',
    env: 'ARCHIVE_STATE',
    flag: 'state',
    default: undefined,
    description:
      'State store: dynamodb://table (endpoint: AWS_ENDPOINT_URL_DYNAMODB). Default for file:// destinations: item files in DIR/.state (docs/design.md, the state store).',
    schema: (n) => viaParser(n, 'ARCHIVE_STATE', parseStateUrl).optional(),
    readBy: ['cli', ...FUNCTIONS, 'security-lake-export'],
  },
  {
    key: 'keysDir',
    env: 'ARCHIVE_KEYS_DIR',
    flag: 'keys-dir',
    default: undefined,
    description:
      'CLI: folder of the token HMAC key and the digest signing key (back it up). Default for file://DIR destinations: DIR/.keys when it exists (archives made before), else a per-user folder, $XDG_CONFIG_HOME/tunnel-archiver/keys/<name>-<hash of DIR> (~/.config without XDG_CONFIG_HOME; docs/local-mode-security.md); required for s3:// (the Lambda uses its secret and KMS key instead).',
    schema: (n) => text(n).optional(),
    readBy: ['cli'],
  },
  {
    key: 'tokenValues',
    env: 'TOKEN_VALUES',
    flag: 'token-values',
    default: 'hash',
    description: 'keep | hash | drop: raw token columns kept, replaced by their hash only, or both dropped.',
    schema: (n) => oneOf(n, TOKEN_POLICIES),
    readBy: [...API_CALLERS],
  },
  {
    key: 'pageSize',
    env: 'PAGE_SIZE',
    flag: 'page-size',
    default: '2000',
    description: 'Page size asked of the API (the size it echoes is the one used).',
    schema: (n) => intIn(n, 1, 10_000),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'pageConcurrency',
    env: 'PAGE_CONCURRENCY',
    flag: 'page-concurrency',
    default: '2',
    description: 'Pages of one day fetched at once.',
    schema: (n) => intIn(n, 1, 16),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'dayConcurrency',
    env: 'DAY_CONCURRENCY',
    flag: 'day-concurrency',
    default: '1',
    description:
      'Days walked at once (each with PAGE_CONCURRENCY requests): a first backfill goes faster; the API sees DAY_CONCURRENCY x PAGE_CONCURRENCY requests in flight.',
    schema: (n) => intIn(n, 1, 16),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'maxPasses',
    env: 'MAX_PASSES',
    flag: 'max-passes',
    default: String(DEFAULT_MAX_PASSES),
    description: `Most walks of one day per run (a walk that holds every row its pages proved also stops once ${STALLED_PASSES} in a row add nothing, any walk once ${BARREN_PASSES} do); a day still short is recorded and scanned again.`,
    schema: (n) => intIn(n, 1, 500),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'rescanAges',
    env: 'RESCAN_AGES',
    flag: 'rescan-ages',
    default: '1,2,3,7,14,30,45',
    description: 'Ages in days at which a day is scanned again for late records.',
    schema: (n) => dayList(n),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'maxPagesPerDay',
    env: 'MAX_PAGES_PER_DAY',
    flag: 'max-pages-per-day',
    default: undefined,
    description:
      'Cap on the pages of one pass of a day: beyond it that day fails with PAGE_LIMIT and the run goes on. Unset: the pages the largest day the archive proves (26,000,000 sessions) needs at the page size the server echoes.',
    schema: (n) => intIn(n, 1, 10_000_000).optional(),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'windowDays',
    env: 'WINDOW_DAYS',
    flag: 'window-days',
    default: '60',
    description:
      'Days of history the API keeps. Final sweeps run at ages WINDOW_DAYS-2 and WINDOW_DAYS-1; a server that keeps fewer days is learned from its 400s.',
    schema: (n) => intIn(n, 2, 366),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'rowGroupSize',
    env: 'ROW_GROUP_SIZE',
    flag: 'row-group-size',
    default: '100000',
    description: 'Rows per Parquet row group.',
    schema: (n) => intIn(n, 100, 10_000_000),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'parquetEncoder',
    env: 'PARQUET_ENCODER',
    flag: 'parquet-encoder',
    default: 'worker',
    description:
      'worker | inline: where Parquet row groups are encoded. worker encodes a file past 1,024 rows on a second thread while pages are fetched (1.1–1.5× faster on the bench’s million-record runs, bench/RESULTS.md); where there is no worker (under 1.5 cores’ worth of CPU, a container’s CPU quota counted; the Lambda bundle) it is inline. inline keeps every file on the main thread.',
    schema: (n) => oneOf(n, PARQUET_ENCODERS),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'leaseTtlMs',
    env: 'LEASE_TTL_MS',
    flag: 'lease-ttl-ms',
    default: '600000',
    description: 'Single-writer lease time-to-live (renewed after every day).',
    schema: (n) => intIn(n, 1_000, 86_400_000),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'deadlineReserveMs',
    env: 'DEADLINE_RESERVE_MS',
    flag: 'deadline-reserve-ms',
    default: '60000',
    description:
      "The one reserve kept before a run's end (Lambda timeout, or --max-run-ms): inside it no day starts and walks stop, committing what they hold.",
    schema: (n) => intIn(n, 0, 3_600_000),
    readBy: [...ARCHIVERS],
  },
  {
    key: 'maxRunMs',
    env: 'MAX_RUN_MS',
    flag: 'max-run-ms',
    default: undefined,
    description:
      'Optional end of a CLI run, in ms from its start (work stops DEADLINE_RESERVE_MS before it).',
    schema: (n) => intIn(n, 1, 86_400_000).optional(),
    readBy: ['cli'],
  },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    default: 'info',
    description: 'debug | info | warn | error.',
    schema: (n) => oneOf(n, ['debug', 'info', 'warn', 'error']),
    readBy: ['cli', ...FUNCTIONS, 'security-lake-export', 'verify-job'],
  },
  {
    key: 'logFormat',
    env: 'LOG_FORMAT',
    flag: 'log-format',
    default: 'auto',
    description:
      'auto | human | json: logs on stderr as plain lines (auto on a terminal) or one JSON object a line (auto otherwise).',
    schema: (n) => oneOf(n, ['auto', 'human', 'json']),
    readBy: ['cli'],
  },
  {
    key: 'codec',
    env: 'CODEC',
    default: undefined,
    description:
      'ZSTD | GZIP | SNAPPY: the Parquet codec. Unset: ZSTD where node:zlib has zstd (Node >= 22.15, the Lambda), else GZIP.',
    schema: (n) => oneOf(n, PARQUET_COMPRESSIONS).optional(),
    readBy: ['cli', ...FUNCTIONS],
  },
  {
    key: 'awsEndpointUrlS3',
    env: 'AWS_ENDPOINT_URL_S3',
    default: undefined,
    description:
      "The AWS SDK's S3 endpoint: set, the store uses path-style addressing for an S3-compatible server.",
    schema: (n) => httpUrl(n).optional(),
    readBy: ['cli', ...FUNCTIONS, 'security-lake-export', 'verify-job'],
  },
  {
    key: 'digestSigningKeyId',
    env: 'DIGEST_SIGNING_KEY_ID',
    default: undefined,
    description: 'Lambda only (set by the stack): the KMS key that signs digests.',
    schema: () => text().optional(),
    readBy: ['archive-history', 'fanout'],
  },
  {
    key: 'tokenKeySecretId',
    env: 'TOKEN_KEY_SECRET_ID',
    default: undefined,
    description: 'Lambda only (set by the stack): the secret holding the token HMAC key.',
    schema: () => text().optional(),
    readBy: ['archive-history', 'fanout', 'snapshot-active'],
  },
  {
    key: 'checksumJobRoleArn',
    env: 'CHECKSUM_JOB_ROLE_ARN',
    default: undefined,
    description:
      "Lambda only (set by the stack): the role S3 Batch Operations computes the weekly verify's checksums with; unset, the weekly verify lists the archive and checks a rotation slice itself.",
    schema: (n) => matching(n, ROLE_ARN, 'an IAM role ARN').optional(),
    readBy: ['archive-history'],
  },
  {
    key: 'snapshotIntervalMinutes',
    env: 'SNAPSHOT_INTERVAL_MINUTES',
    default: '5',
    description:
      'Lambda only: the schedule of the snapshot function, in minutes (1-1440); gaps are measured against it.',
    schema: (n) => intIn(n, 1, 1440),
    readBy: ['snapshot-active'],
  },
  {
    key: 'snapshotCommitMinutes',
    env: 'SNAPSHOT_COMMIT_MINUTES',
    default: '60',
    description:
      'Lambda only: minutes live-session rows are held in the state before they are committed as one file (0-1440; 0 commits every snapshot).',
    schema: (n) => intIn(n, 0, 1440),
    readBy: ['snapshot-active'],
  },
  {
    key: 'detectionSettings',
    env: 'DETECTION_SETTINGS',
    default: undefined,
    description:
      "Lambda only: the stack's `detections` context as JSON (thresholds, allowlists, time zone), checked against the rules.",
    schema: (n) => jsonObjectText(n).optional(),
    readBy: ['detect', 'snapshot-active', 'security-lake-export'],
  },
  {
    key: 'detectionsDir',
    env: 'DETECTIONS_DIR',
    default: undefined,
    description:
      'Lambda only: the folder of the rules. Unset: the copy of detections/ in the bundle (the repository folder when run from source).',
    schema: () => text().optional(),
    readBy: ['detect', 'snapshot-active', 'security-lake-export'],
  },
  {
    key: 'workgroup',
    env: 'WORKGROUP',
    default: undefined,
    description: 'Lambda only (set by the stack): the Athena workgroup the detect function queries in.',
    schema: () => text().optional(),
    readBy: ['detect'],
  },
  {
    key: 'database',
    env: 'DATABASE',
    default: undefined,
    description: 'Lambda only (set by the stack): the Glue database of the archive tables.',
    schema: () => text().optional(),
    readBy: ['detect'],
  },
  {
    key: 'findingsTopicArn',
    env: 'FINDINGS_TOPIC_ARN',
    default: undefined,
    description:
      'Lambda only (set by the stack): the SNS topic new findings and live alerts are published to.',
    schema: (n) => matching(n, /^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w.-]+$/, 'an SNS topic ARN').optional(),
    readBy: ['detect', 'snapshot-active'],
  },
  {
    key: 'scheduleMinutes',
    env: 'SCHEDULE_MINUTES',
    default: '5',
    description:
      'Lambda only: the schedule of the detect function, in minutes (1-1440): the tick a rule is due on.',
    schema: (n) => intIn(n, 1, 1440),
    readBy: ['detect'],
  },
  {
    key: 'securityLakeSources',
    env: 'SECURITY_LAKE_SOURCES',
    default: undefined,
    description:
      "Lambda only (set by the stack): the Security Lake custom sources as a JSON array, the `securityLake` context's `sources` (class, lake bucket, `ext/<source>/` prefix, provider role ARN, external id).",
    schema: (n) => jsonArrayText(n).optional(),
    readBy: ['security-lake-export'],
  },
  {
    key: 'securityLakeSettleHours',
    env: 'SECURITY_LAKE_SETTLE_HOURS',
    default: '6',
    description:
      "Lambda only (set by the stack): hours after an archive hour ends before the Security Lake export sends what it archived (0-72); a session's Open carries its latest revision when sent.",
    schema: (n) => intIn(n, 0, 72),
    readBy: ['security-lake-export'],
  },
  {
    key: 'securityLakeMaxHours',
    env: 'SECURITY_LAKE_MAX_HOURS',
    default: '48',
    description:
      'Lambda only: the most archive hours of each source one Security Lake export run sends (1-744).',
    schema: (n) => intIn(n, 1, 744),
    readBy: ['security-lake-export'],
  },
  {
    key: 'securityLakeLookbackDays',
    env: 'SECURITY_LAKE_LOOKBACK_DAYS',
    default: '7',
    description:
      "Lambda only: days of history before a finding's partition that the Security Lake export also reads (0-60), to resolve its related sessions.",
    schema: (n) => intIn(n, 0, 60),
    readBy: ['security-lake-export'],
  },
] as const satisfies readonly SettingSpec[];

export type SettingKey = (typeof SETTINGS)[number]['key'];

/** The environment variable of a setting (one source for a name that docs, the stack and the CLI all show). */
export function settingEnv(key: SettingKey): string {
  const spec = SETTINGS.find((s) => s.key === key);
  if (spec === undefined) throw new Error(`no setting ${key}`);
  return spec.env;
}

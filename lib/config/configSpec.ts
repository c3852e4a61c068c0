import { DEFAULT_MAX_PASSES, STALLED_PASSES } from '../walk/walkDay.ts';
/**
 * Every setting, once: its env variable, CLI flag, default and meaning. The configuration table in
 * docs/configuration.md is generated from (and tested against) this list.
 */
export interface SettingSpec {
  key: string;
  env: string;
  flag?: string;
  default: string | undefined;
  description: string;
}

export const SETTINGS = [
  {
    key: 'apiKey',
    env: 'TUNNEL_API_KEY',
    default: undefined,
    description:
      'API key (Bearer). Unset in local mode: the embedded emulator is used. Never passed as a flag, never logged.',
  },
  {
    key: 'apiKeySecretId',
    env: 'TUNNEL_API_KEY_SECRET_ID',
    default: undefined,
    description: 'Lambda only: Secrets Manager secret (name or ARN) holding the API key.',
  },
  {
    key: 'baseUrl',
    env: 'TUNNEL_API_BASE_URL',
    flag: 'base-url',
    default: 'https://dashboard.pinggy.io',
    description: 'Base URL of the tunnel session API.',
  },
  {
    key: 'dest',
    env: 'ARCHIVE_DEST',
    flag: 'dest',
    default: 'file://./archive',
    description: 'Where Parquet goes: file://DIR or s3://bucket/prefix (endpoint: AWS_ENDPOINT_URL_S3).',
  },
  {
    key: 'state',
    env: 'ARCHIVE_STATE',
    flag: 'state',
    default: undefined,
    description:
      'State store: dynamodb://table (endpoint: AWS_ENDPOINT_URL_DYNAMODB). Default for file:// destinations: item files in DIR/.state (docs/design.md, the state store).',
  },
  {
    key: 'keysDir',
    env: 'ARCHIVE_KEYS_DIR',
    flag: 'keys-dir',
    default: undefined,
    description:
      'CLI: folder of the token HMAC key and the digest signing key (back it up). Default for file:// destinations: DIR/.keys; required for s3:// (the Lambda uses its secret and KMS key instead).',
  },
  {
    key: 'tokenValues',
    env: 'TOKEN_VALUES',
    flag: 'token-values',
    default: 'hash',
    description: 'keep | hash | drop: raw token columns kept, replaced by their hash only, or both dropped.',
  },
  {
    key: 'pageSize',
    env: 'PAGE_SIZE',
    flag: 'page-size',
    default: '2000',
    description: 'Page size asked of the API (the size it echoes is the one used).',
  },
  {
    key: 'pageConcurrency',
    env: 'PAGE_CONCURRENCY',
    flag: 'page-concurrency',
    default: '2',
    description: 'Pages of one day fetched at once.',
  },
  {
    key: 'dayConcurrency',
    env: 'DAY_CONCURRENCY',
    flag: 'day-concurrency',
    default: '1',
    description:
      'Days walked at once (each with PAGE_CONCURRENCY requests): a first backfill goes faster; the API sees DAY_CONCURRENCY x PAGE_CONCURRENCY requests in flight.',
  },
  {
    key: 'maxPasses',
    env: 'MAX_PASSES',
    flag: 'max-passes',
    default: String(DEFAULT_MAX_PASSES),
    description: `Most walks of one day per run (a walk that holds every row its pages proved also stops once ${STALLED_PASSES} in a row add nothing); a day still short is recorded and scanned again.`,
  },
  {
    key: 'rescanAges',
    env: 'RESCAN_AGES',
    flag: 'rescan-ages',
    default: '1,2,3,7,14,30,45',
    description: 'Ages in days at which a day is scanned again for late records.',
  },
  {
    key: 'maxPagesPerDay',
    env: 'MAX_PAGES_PER_DAY',
    flag: 'max-pages-per-day',
    default: '1000',
    description:
      'Hard cap on the pages of one day: beyond it that day fails with PAGE_LIMIT and the run goes on.',
  },
  {
    key: 'windowDays',
    env: 'WINDOW_DAYS',
    flag: 'window-days',
    default: '60',
    description:
      'Days of history the API keeps. Final sweeps run at ages WINDOW_DAYS-2 and WINDOW_DAYS-1; a server that keeps fewer days is learned from its 400s.',
  },
  {
    key: 'rowGroupSize',
    env: 'ROW_GROUP_SIZE',
    flag: 'row-group-size',
    default: '100000',
    description: 'Rows per Parquet row group.',
  },
  {
    key: 'parquetEncoder',
    env: 'PARQUET_ENCODER',
    flag: 'parquet-encoder',
    default: 'worker',
    description:
      'worker | inline: where Parquet row groups are encoded. worker encodes a file past 1,024 rows on a second thread while pages are fetched (1.0–1.2× faster on the bench’s million-record runs, bench/RESULTS.md); where there is no worker (one CPU, the Lambda bundle) it is inline. inline keeps every file on the main thread.',
  },
  {
    key: 'leaseTtlMs',
    env: 'LEASE_TTL_MS',
    flag: 'lease-ttl-ms',
    default: '600000',
    description: 'Single-writer lease time-to-live (renewed after every day).',
  },
  {
    key: 'deadlineReserveMs',
    env: 'DEADLINE_RESERVE_MS',
    flag: 'deadline-reserve-ms',
    default: '60000',
    description:
      "The one reserve kept before a run's end (Lambda timeout, or --max-run-ms): inside it no day starts and walks stop, committing what they hold.",
  },
  {
    key: 'maxRunMs',
    env: 'MAX_RUN_MS',
    flag: 'max-run-ms',
    default: undefined,
    description:
      'Optional end of a CLI run, in ms from its start (work stops DEADLINE_RESERVE_MS before it).',
  },
  {
    key: 'crashAt',
    env: 'CRASH_AT',
    default: undefined,
    description:
      'Testing only: the CLI kills itself (SIGKILL) right after the Nth step of one phase, PHASE:N with PHASE walk, upload, commit, publish or digest; recovery tests use it to crash at every phase.',
  },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    default: 'info',
    description: 'debug | info | warn | error.',
  },
  {
    key: 'logFormat',
    env: 'LOG_FORMAT',
    flag: 'log-format',
    default: 'auto',
    description:
      'auto | human | json: logs on stderr as plain lines (auto on a terminal) or one JSON object a line (auto otherwise).',
  },
] as const satisfies readonly SettingSpec[];

export type SettingKey = (typeof SETTINGS)[number]['key'];

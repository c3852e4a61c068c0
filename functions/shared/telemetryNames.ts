/**
 * Names shared by the Lambda (which emits) and the CDK stack (whose alarms watch): one place, so an
 * alarm can never watch a metric nobody writes. Powertools adds the `service` dimension itself.
 */
export const METRICS_NAMESPACE = 'TunnelArchiver';
export const SERVICE_NAME = 'tunnel-archiver';

export const METRIC = {
  /** New rows written to `history/` by the run. */
  RecordsArchived: 'RecordsArchived',
  /** Days whose last scan could not reach the API's `totalElements`. */
  Shortfalls: 'Shortfalls',
  /** Unsealed days within 2 days of leaving the API's window. */
  DaysAtRisk: 'DaysAtRisk',
  /** Days that left the window unsealed (late records may be lost). */
  Gaps: 'Gaps',
  /** 1 when the run failed because the API rejected the key or the plan. */
  AuthFailures: 'AuthFailures',
  /** 1 for a run that finished (even if stopped by its deadline), 0 for a failed one. */
  RunSucceeded: 'RunSucceeded',
  /** Planned days left for a later run because the deadline came. */
  DaysDeferred: 'DaysDeferred',
  /** Days whose walk or commit failed on this run (the run went on with the others). */
  DayFailures: 'DayFailures',
  /** The most runs in a row that one day has failed on (its `failure.attempts`). */
  DayFailureStreak: 'DayFailureStreak',
  /** Partitions whose manifest lists a missing file (blocked until repaired). */
  BrokenPartitions: 'BrokenPartitions',
  /** Staged files refused at publish: their bytes were not what their writer staged (`STAGED_FILE_CHANGED`). */
  StagedFilesChanged: 'StagedFilesChanged',
  /** Age in hours of the oldest committed file still waiting in `_staging/` at the start of the run. */
  UnpublishedFileAgeHours: 'UnpublishedFileAgeHours',
  /** Failed checks of a `{ "verify": true }` invocation (0 for an intact archive). */
  VerifyFailures: 'VerifyFailures',
  /** Records the API has that the archive will take on a later run (not a failure). */
  VerifyPending: 'VerifyPending',
  /** Position of the digest this run appended: the chain head, recorded outside the bucket on every run. */
  ChainHeadSeq: 'ChainHeadSeq',
  /** Pages of the API the run fetched, every day together (a day's `pagesThisRun`): the walks' pace. */
  PagesFetched: 'PagesFetched',
  /** Days whose walk the deadline cut: they go on where they stopped on the next run (a big day takes several). */
  WalksCut: 'WalksCut',
  /** Pages the furthest-behind cut walk still needs (its outlook's `pagesLeft`; 0 when no walk was cut). */
  WalkPagesLeft: 'WalkPagesLeft',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * The value the stack stores in a secret it creates. Secrets Manager cannot hold an empty string, so
 * the handler recognises this one and says how to set the real key instead of calling the API with it.
 */
export const API_KEY_PLACEHOLDER = 'REPLACE_WITH_YOUR_PINGGY_API_KEY';

/** Environment of the function, set by the stack: the KMS key that signs digests, and the token HMAC key's secret. */
export const INTEGRITY_ENV = {
  digestKeyId: 'DIGEST_SIGNING_KEY_ID',
  tokenKeySecretId: 'TOKEN_KEY_SECRET_ID',
  checksumJobRoleArn: 'CHECKSUM_JOB_ROLE_ARN',
} as const;

/** The payload of the stack's weekly verification schedule. */
export const VERIFY_EVENT = { verify: true } as const;

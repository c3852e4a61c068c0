import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectLockRetention,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { asIBucket } from '../cdkTypes.ts';

export interface ArchiveBucketsProps {
  /** Object Lock default retention; unset = no Object Lock. */
  objectLockDays?: number;
  objectLockMode: 'GOVERNANCE' | 'COMPLIANCE';
}

/** Key prefixes the archiver writes, from `archiveKeys`; `history/` is the Athena table location. */
export const PREFIX = {
  history: archiveKeys.historyPrefix,
  active: archiveKeys.activePrefix,
  findings: archiveKeys.findingsPrefix,
  quarantine: archiveKeys.quarantinePrefix,
  staging: archiveKeys.stagingPrefix,
  digests: archiveKeys.digestsPrefix,
  reports: archiveKeys.reportsPrefix,
  verifyJobs: archiveKeys.verifyJobsPrefix,
} as const;

/**
 * The only prefixes whose noncurrent versions expire: staged files (a deleted staged file is never the
 * archive), the weekly report's older versions and a verify job's expired working files. Never a
 * write-once prefix, whose only noncurrent versions are what someone deleted.
 */
export const NONCURRENT_EXPIRY_PREFIXES = [
  archiveKeys.stagingPrefix,
  archiveKeys.reportsPrefix,
  archiveKeys.verifyJobsPrefix,
] as const;

/** Versions of `reports/index.html` kept (the current one and the weeks before it). */
export const REPORT_VERSIONS_KEPT = 8;

/**
 * The command that prints a presigned URL (valid one hour) of the weekly report; open the URL in a
 * browser. The stack outputs it and the verify alarm names it.
 */
export function openReportCommand(bucketName: string): string {
  return `aws s3 presign s3://${bucketName}/${archiveKeys.report} --expires-in 3600`;
}

/**
 * No rule expires current objects under `_staging/`: a file there may be committed (listed in its manifest)
 * and waiting to be published, and nothing may remove a committed file. The archiver itself deletes staged
 * files that no manifest lists once they are a day old (`lib/archive/commit/sweepStaging.ts`); only the noncurrent
 * versions those deletes leave behind expire here.
 */
export const STAGING_NONCURRENT_DAYS = 1;
/** Days the fan-out's per-orchestration bookkeeping under `_staging/fanout*` is kept. */
export const FANOUT_BOOKKEEPING_DAYS = 7;
/**
 * Days a full verify job's plan and item results under `verify-jobs/` are kept: a failed job can be started
 * again (and resume) within them. Its merged result is also written to `reports/full-verify.json`, which
 * does not expire.
 */
export const VERIFY_JOB_DAYS = 30;

/**
 * The archive bucket (versioned, TLS-only, private, optionally Object-Locked), its server access log
 * bucket, and a separate Athena results bucket, so query results are never under the archive's lock.
 */
export class ArchiveBuckets extends Construct {
  readonly archive: Bucket;
  readonly logs: Bucket;
  readonly athenaResults: Bucket;

  constructor(scope: Construct, id: string, props: ArchiveBucketsProps) {
    super(scope, id);
    const common = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    };

    this.logs = new Bucket(this, 'AccessLogs', {
      ...common,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
    });

    const lock = props.objectLockDays;
    this.archive = new Bucket(this, 'Archive', {
      ...common,
      versioned: true,
      serverAccessLogsBucket: asIBucket(this.logs),
      serverAccessLogsPrefix: 'archive/',
      ...(lock === undefined
        ? {}
        : {
            objectLockEnabled: true,
            objectLockDefaultRetention:
              props.objectLockMode === 'COMPLIANCE'
                ? ObjectLockRetention.compliance(Duration.days(lock))
                : ObjectLockRetention.governance(Duration.days(lock)),
          }),
      lifecycleRules: [
        {
          id: 'history-to-intelligent-tiering',
          prefix: PREFIX.history,
          transitions: [
            { storageClass: StorageClass.INTELLIGENT_TIERING, transitionAfter: Duration.days(30) },
          ],
        },
        {
          id: 'expire-deleted-staging-versions',
          prefix: PREFIX.staging,
          noncurrentVersionExpiration: Duration.days(STAGING_NONCURRENT_DAYS),
          expiredObjectDeleteMarker: true,
        },
        {
          // The fan-out's bookkeeping (items, item outcomes, range ids, the finished marker, the Distributed
          // Map's result files) is per orchestration and read only while it runs (hours at most): it expires,
          // so it never piles up with the archive's age. Data files are never under it: a run's staged files
          // are under _staging/<8 hex run id>/.
          id: 'expire-fanout-bookkeeping',
          prefix: `${PREFIX.staging}fanout`,
          expiration: Duration.days(FANOUT_BOOKKEEPING_DAYS),
        },
        {
          id: 'expire-verify-jobs',
          prefix: PREFIX.verifyJobs,
          expiration: Duration.days(VERIFY_JOB_DAYS),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          // reports/index.html is replaced by every weekly verify: the last versions are kept, older
          // ones expire (under Object Lock, once their retention ends).
          id: 'keep-last-reports',
          prefix: PREFIX.reports,
          noncurrentVersionExpiration: Duration.days(1),
          noncurrentVersionsToRetain: REPORT_VERSIONS_KEPT - 1,
        },
        {
          // No noncurrent version expires anywhere else: under the write-once prefixes a noncurrent version
          // exists only if someone deleted the object, and that version is the archive (the bucket policy
          // refuses such deletes; see NONCURRENT_EXPIRY_PREFIXES).
          id: 'abort-incomplete-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
    });

    this.athenaResults = new Bucket(this, 'AthenaResults', {
      ...common,
      serverAccessLogsBucket: asIBucket(this.logs),
      serverAccessLogsPrefix: 'athena-results/',
      lifecycleRules: [{ id: 'expire-query-results', expiration: Duration.days(30) }],
    });
  }
}

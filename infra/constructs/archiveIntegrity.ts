import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  AnyPrincipal,
  Effect,
  type IRole,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFn } from 'aws-cdk-lib/aws-lambda';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  INTEGRITY_ENV,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  VERIFY_EVENT,
} from '../../functions/shared/telemetryNames.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { CHECKSUM_REPORTS_PREFIX } from '../../lib/integrity/verify/checksumJobs.ts';
import { openReportCommand, PREFIX } from './archiveBuckets.ts';

export interface ArchiveIntegrityProps {
  bucket: Bucket;
  fn: LambdaFn;
  role: IRole;
  topic: ITopic;
  /** Where failed scheduled verify invocations go. */
  failures: IQueue;
  /** EventBridge expression of the verification schedule. */
  verifySchedule?: string;
  /** The one role allowed to delete under the write-once prefixes and change the bucket's policy or lifecycle. */
  breakGlassRoleArn?: string;
}

/**
 * Prefixes whose objects are published once and never replaced, the bucket policy enforces it: every
 * prefix the digest chain covers, and `digests/` itself (one list, `digestKeys.writeOncePrefixes`).
 */
export const WRITE_ONCE_PREFIXES = digestKeys.writeOncePrefixes;

export const DEFAULT_VERIFY_SCHEDULE = 'rate(7 days)';

/** How often the reports of finished checksum jobs are judged (`{ "checksumReports": true }`). */
export const CHECKSUM_REPORTS_SCHEDULE = 'rate(1 day)';

/** The payload of the schedule that judges finished checksum jobs. */
export const CHECKSUM_REPORTS_EVENT = { checksumReports: true } as const;

/**
 * What makes the archive tamper-evident and its own source of truth: the KMS key that signs digests,
 * the token HMAC key's secret (both kept when the stack is deleted: losing either breaks verification
 * or token lookups for good), a bucket policy that refuses any write under the write-once prefixes
 * without `If-None-Match` (so no principal, not even the function's role, can replace a
 * published object), and the weekly `{ "verify": true }` run with its alarm.
 */
export class ArchiveIntegrity extends Construct {
  readonly signingKey: Key;
  readonly tokenKey: Secret;
  readonly verifyRule: Rule;
  readonly verifyAlarm: Alarm;
  /** The role S3 Batch Operations computes the weekly verify's checksums with. */
  readonly checksumJobRole: Role;
  readonly checksumReportsRule: Rule;

  constructor(scope: Construct, id: string, props: ArchiveIntegrityProps) {
    super(scope, id);
    const { bucket, fn, role } = props;

    this.signingKey = new Key(this, 'DigestSigningKey', {
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      description:
        'Signs the tunnel-archiver digest chain (digests/); its public key is published in the archive',
      // Deleting the key does not break verification (the public key is in the archive), but no new
      // digest could continue the chain: keep it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.signingKey.grant(role, 'kms:Sign', 'kms:GetPublicKey');
    // The key's default policy delegates to IAM: any principal of the account granted kms:Sign on `*` could
    // make digests verify accepts. The key itself refuses to sign for anyone but the roles that append them.
    this.signingKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'SignOnlyForTheArchiver',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:Sign'],
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': [role.roleArn] } },
      }),
    );

    this.tokenKey = new Secret(this, 'TokenKey', {
      description:
        'tunnel-archiver token HMAC key (token columns, record_id). Never rotate or delete: without it no known token can be looked up in the archive. Back it up.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      // Deletion protection: the secret outlives the stack (and a scheduled deletion can be cancelled).
      removalPolicy: RemovalPolicy.RETAIN,
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ReadTokenKey',
        effect: Effect.ALLOW,
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.tokenKey.secretArn],
      }),
    );
    Validations.of(this.tokenKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The token HMAC key must never change: rows hashed under an old key could no longer be matched with a known token.',
    });

    fn.addEnvironment(INTEGRITY_ENV.digestKeyId, this.signingKey.keyArn);
    fn.addEnvironment(INTEGRITY_ENV.tokenKeySecretId, this.tokenKey.secretArn);

    bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DenyOverwriteOfPublishedObjects',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: WRITE_ONCE_PREFIXES.map((p) => bucket.arnForObjects(`${p}*`)),
        // Absent header = an unconditional write that could replace an object: refused for everyone.
        conditions: { Null: { 's3:if-none-match': 'true' } },
      }),
    );
    denyDeletes(bucket, props.breakGlassRoleArn);
    const bucketArn = `<${Stack.of(this).getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${PREFIX.digests}*]`,
      reason: `Digest keys are numbered per run; the grant is scoped to the ${PREFIX.digests} prefix of the archive bucket.`,
    });

    this.verifyRule = new Rule(this, 'VerifySchedule', {
      schedule: Schedule.expression(props.verifySchedule ?? DEFAULT_VERIFY_SCHEDULE),
      description: 'Verifies the tunnel archive: digest chain, files, and the API window',
    });
    this.verifyRule.addTarget(
      new LambdaFunction(fn, {
        event: RuleTargetInput.fromObject(VERIFY_EVENT),
        retryAttempts: 2,
        maxEventAge: Duration.hours(6),
        deadLetterQueue: props.failures,
      }),
    );

    // The weekly verify's checksum jobs: S3 Batch Operations computes the SHA-256 of the objects written in
    // a time range (its manifest generated from the bucket) and writes the report under checksum-jobs/,
    // which is outside the chain and not write-once. The function may start and describe jobs, and
    // pass this role only to S3 Batch Operations.
    this.checksumJobRole = new Role(this, 'ChecksumJobRole', {
      assumedBy: new ServicePrincipal('batchoperations.s3.amazonaws.com'),
      description: "Runs the tunnel-archiver weekly verify's Compute checksum jobs over the archive bucket",
    });
    this.checksumJobRole.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ReadArchiveObjects',
        actions: ['s3:GetObject', 's3:GetObjectVersion'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    this.checksumJobRole.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'GenerateManifestFromBucket',
        actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:GetBucketLocation'],
        resources: [bucket.bucketArn],
      }),
    );
    this.checksumJobRole.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'WriteChecksumReports',
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`${CHECKSUM_REPORTS_PREFIX}*`)],
      }),
    );
    Validations.of(this.checksumJobRole).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/*]`,
        reason: 'S3 Batch Operations reads every object of the archive bucket to compute its checksum.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${CHECKSUM_REPORTS_PREFIX}*]`,
        reason: 'Job reports are written one folder a job under their own prefix, outside the chain.',
      },
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'StartChecksumJobs',
        actions: ['s3:CreateJob', 's3:DescribeJob'],
        resources: ['*'],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'PassChecksumJobRole',
        actions: ['iam:PassRole'],
        resources: [this.checksumJobRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'batchoperations.s3.amazonaws.com' } },
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ReadChecksumReports',
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects(`${CHECKSUM_REPORTS_PREFIX}*`)],
      }),
    );
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'S3 Batch Operations CreateJob has no resource to scope to, and DescribeJob names jobs by ids S3 assigns.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${CHECKSUM_REPORTS_PREFIX}*]`,
        reason: 'The checksum job reports are read one folder a job under their own prefix.',
      },
    );
    fn.addEnvironment(INTEGRITY_ENV.checksumJobRoleArn, this.checksumJobRole.roleArn);
    this.checksumReportsRule = new Rule(this, 'ChecksumReportsSchedule', {
      schedule: Schedule.expression(CHECKSUM_REPORTS_SCHEDULE),
      description: "Judges the reports of the weekly verify's finished checksum jobs",
    });
    this.checksumReportsRule.addTarget(
      new LambdaFunction(fn, {
        event: RuleTargetInput.fromObject(CHECKSUM_REPORTS_EVENT),
        retryAttempts: 2,
        maxEventAge: Duration.hours(6),
        deadLetterQueue: props.failures,
      }),
    );

    this.verifyAlarm = new Alarm(this, 'VerifyFailures', {
      alarmDescription: `verify found a failure: a changed, missing or extra file, a broken digest chain, or records the API has that the archive lacks. Each failure is logged with the object or day it names. See the report the verify wrote: open the URL that \`${openReportCommand(bucket.bucketName)}\` prints.`,
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.VerifyFailures,
        dimensionsMap: { service: SERVICE_NAME },
        period: Duration.days(1),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.verifyAlarm.addAlarmAction(new SnsAction(props.topic));
  }
}

/** What the bucket policy refuses on the bucket itself: what would let a lifecycle rule or a policy change delete. */
export const GUARDED_BUCKET_ACTIONS = [
  's3:PutLifecycleConfiguration',
  's3:PutBucketPolicy',
  's3:DeleteBucketPolicy',
] as const;

/**
 * The CloudFormation execution role of a CDK-bootstrapped account (any qualifier): the stack's own updates
 * of the bucket's policy and lifecycle go through it, so it may make them; it deletes no object.
 */
export const CFN_EXEC_ROLE_NAME = 'cdk-*-cfn-exec-role-*';

/**
 * Deletion is refused under the write-once prefixes for every principal but the break-glass role (a
 * delete marker too: `s3:DeleteObject*`), and the bucket's lifecycle and policy, which could expire or
 * allow what this forbids, may be changed only by it and the CloudFormation execution role. Object Lock,
 * when on, also keeps every version for its retention; this holds with it or without it.
 */
function denyDeletes(bucket: Bucket, breakGlassRoleArn: string | undefined): void {
  const stack = Stack.of(bucket);
  const breakGlass = breakGlassRoleArn === undefined ? [] : [breakGlassRoleArn];
  const cfnExecRole = stack.formatArn({
    service: 'iam',
    region: '',
    resource: 'role',
    resourceName: CFN_EXEC_ROLE_NAME,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  bucket.addToResourcePolicy(
    new PolicyStatement({
      sid: 'DenyDeleteOfPublishedObjects',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:DeleteObject*'],
      resources: WRITE_ONCE_PREFIXES.map((p) => bucket.arnForObjects(`${p}*`)),
      ...(breakGlass.length === 0
        ? {}
        : { conditions: { ArnNotEquals: { 'aws:PrincipalArn': breakGlass } } }),
    }),
  );
  bucket.addToResourcePolicy(
    new PolicyStatement({
      sid: 'DenyLifecycleAndPolicyChanges',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: [...GUARDED_BUCKET_ACTIONS],
      resources: [bucket.bucketArn],
      conditions: { ArnNotLike: { 'aws:PrincipalArn': [cfnExecRole, ...breakGlass] } },
    }),
  );
}

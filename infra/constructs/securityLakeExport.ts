import { fileURLToPath } from 'node:url';
import { Aws, CfnCondition, CfnOutput, Duration, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { type CfnPolicy, Effect, Policy, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { LakeSourceSetting } from '../../lib/analytics/ocsf/lakeSourceSchema.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { importSecret, secretResourceArn } from './apiKeySecret.ts';
import { functionLogsAndRole, LAMBDA_BUNDLING, LAMBDA_RUNTIME, PROJECT_ROOT } from './archiveFunction.ts';
import { withDetections } from './detectionsBundling.ts';

/** The Security Lake export's source (bundled with `detections/` for the findings' ATT&CK entries). */
export const SECURITY_LAKE_HANDLER_ENTRY = fileURLToPath(
  new URL('../../functions/security-lake-export/handler.ts', import.meta.url),
);

/** The settling delay when the context names none: the config spec's default. */
const SETTLE_HOURS_DEFAULT = SETTINGS.find((s) => s.key === 'securityLakeSettleHours')?.default;

/** State items the export touches: one cursor per source. */
export const LAKE_CURSOR_PKS = 'LAKE#*';

export interface SecurityLakeExportProps {
  bucket: Bucket;
  table: ITable;
  sources: readonly LakeSourceSetting[];
  /**
   * The lake's own KMS key, when it uses one (its ARN): the provider roles of this account may then use
   * it for their writes to the lake bucket (see `grantLakeKey`).
   */
  kmsKeyArn?: string;
  /** Hours after an hour ends before it is written (default: the config spec's). */
  settleHours?: number;
  alarmTopic?: ITopic;
}

/**
 * Amazon Security Lake custom sources (opt-in, CDK context `securityLake`): an hourly function that maps
 * the archive to OCSF 1.1 (lib/analytics/ocsf) and writes each settled hour of each class once, as Parquet in the
 * lake's layout, through the provider role Security Lake created for the source (sts:AssumeRole with its
 * external id). It reads history/ and findings/ only, keeps a cursor per source in the state table, and
 * an alarm fires on a failed run.
 */
export class SecurityLakeExport extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: SecurityLakeExportProps) {
    super(scope, id);
    const { logGroup, role } = functionLogsAndRole(
      this,
      'tunnel-archiver Security Lake export: reads history/ and findings/, assumes the lake provider roles',
    );
    this.fn = new NodejsFunction(this, 'Function', {
      runtime: LAMBDA_RUNTIME,
      // DuckDB's native module is installed for the bundling host's platform (x86_64 Linux).
      architecture: lambda.Architecture.X86_64,
      memorySize: 2048,
      timeout: Duration.minutes(15),
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      entry: SECURITY_LAKE_HANDLER_ENTRY,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      role,
      logGroup,
      description: 'Writes the archive as OCSF 1.1 Parquet to the Amazon Security Lake custom sources',
      environment: {
        ARCHIVE_DEST: `s3://${props.bucket.bucketName}/`,
        ARCHIVE_STATE: `dynamodb://${props.table.tableName}`,
        SECURITY_LAKE_SOURCES: JSON.stringify(props.sources),
        SECURITY_LAKE_SETTLE_HOURS: String(props.settleHours ?? SETTLE_HOURS_DEFAULT),
        LOG_LEVEL: 'info',
      },
      bundling: { ...withDetections(LAMBDA_BUNDLING), nodeModules: ['@duckdb/node-api'] },
    });
    this.rule = new events.Rule(this, 'Schedule', {
      schedule: events.Schedule.rate(Duration.hours(1)),
      description: 'Writes the settled hours to the Security Lake custom sources',
    });
    this.rule.addTarget(
      new targets.LambdaFunction(this.fn, { retryAttempts: 0, maxEventAge: Duration.hours(1) }),
    );

    logGroup.grantWrite(role);
    const objects = (prefix: string) => props.bucket.arnForObjects(`${prefix}*`);
    role.addToPolicy(
      allow(
        'ReadArchiveForOcsf',
        ['s3:GetObject'],
        [objects(archiveKeys.historyPrefix), objects(archiveKeys.findingsPrefix)],
      ),
    );
    // The digest chain, read by key: what was archived, in order (the export's cursor follows it).
    role.addToPolicy(allow('ReadDigestChain', ['s3:GetObject'], [objects(archiveKeys.digestsPrefix)]));
    // A finding's related sessions: the history partitions of its days, listed one day at a time.
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ListArchive',
        effect: Effect.ALLOW,
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${archiveKeys.historyPrefix}*`] } },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'LakeCursors',
        effect: Effect.ALLOW,
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [LAKE_CURSOR_PKS] } },
      }),
    );
    role.addToPolicy(
      allow(
        'AssumeLakeProviderRoles',
        ['sts:AssumeRole'],
        props.sources.map((s) => s.roleArn),
      ),
    );
    // Each provider role's external id, read once at the function's start: never in the environment.
    role.addToPolicy(
      allow(
        'ReadExternalIds',
        ['secretsmanager:GetSecretValue'],
        [...new Set(props.sources.map((s) => s.externalIdSecret))].map((nameOrArn, i) =>
          secretResourceArn(importSecret(this, `ExternalIdSecret${i}`, nameOrArn)),
        ),
      ),
    );
    new CfnOutput(this, 'FunctionRoleArn', {
      value: role.roleArn,
      description:
        "The role each provider role's trust policy names (aws:PrincipalArn): see docs/security-lake.md",
    });
    if (props.kmsKeyArn !== undefined) this.grantLakeKey(props.kmsKeyArn, props.sources);

    this.alarm = new Alarm(this, 'FailedRunAlarm', {
      alarmDescription:
        'A Security Lake export run failed: the next run retries from the cursor (see its logs)',
      metric: this.fn.metricErrors({ period: Duration.hours(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmTopic !== undefined) this.alarm.addAlarmAction(new SnsAction(props.alarmTopic));

    const archiveArn = `<${Stack.of(this).getLogicalId(props.bucket.node.defaultChild as CfnBucket)}.Arn>`;
    for (const prefix of [archiveKeys.historyPrefix, archiveKeys.findingsPrefix, archiveKeys.digestsPrefix])
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${archiveArn}/${prefix}*]`,
        reason: `The export reads ${prefix} (files named per run: data partitions, or the digest chain by position) to map them to OCSF: read-only, one prefix.`,
      });
  }

  /**
   * The lake's writes are the provider roles' (the function signs them with the role's session), so with
   * a lake key it is the provider role, not the function's role, that S3 asks KMS for: it needs
   * `kms:GenerateDataKey` (and `kms:Decrypt`, for multipart uploads) on the key, through S3 only. The
   * stack attaches that policy to each provider role of its own account (a CloudFormation condition
   * keeps it out when deployed elsewhere); a role in another account gets it from the lake's admin
   * (docs/security-lake.md). The key's policy must let the role use it (its IAM delegation does).
   */
  private grantLakeKey(kmsKeyArn: string, sources: readonly LakeSourceSetting[]): void {
    const [, , , keyRegion] = kmsKeyArn.split(':');
    const roleArns = [...new Set(sources.map((s) => s.roleArn))].sort();
    roleArns.forEach((arn, i) => {
      const [, , , , account = ''] = arn.split(':');
      const stackAccount = Stack.of(this).account;
      if (!Token.isUnresolved(stackAccount) && stackAccount !== account) return;
      const policy = new Policy(this, `ProviderRoleLakeKey${i}`, {
        statements: [
          new PolicyStatement({
            sid: 'LakeKeyThroughS3',
            effect: Effect.ALLOW,
            actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
            resources: [kmsKeyArn],
            conditions: { StringEquals: { 'kms:ViaService': `s3.${keyRegion}.amazonaws.com` } },
          }),
        ],
      });
      policy.attachToRole(Role.fromRoleArn(this, `ProviderRole${i}`, arn, { mutable: true }));
      (policy.node.defaultChild as CfnPolicy).cfnOptions.condition = new CfnCondition(
        this,
        `ProviderRoleInThisAccount${i}`,
        { expression: Fn.conditionEquals(Aws.ACCOUNT_ID, account) },
      );
    });
  }
}

function allow(sid: string, actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions, resources });
}

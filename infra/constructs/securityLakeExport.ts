import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { archiveKeys } from '../../lib/commit/archiveKeys.ts';
import type { LakeSourceSetting } from '../../lib/ocsf/lakeSourceSchema.ts';
import { functionLogsAndRole, LAMBDA_BUNDLING, LAMBDA_RUNTIME, PROJECT_ROOT } from './archiveFunction.ts';
import { withDetections } from './detectionsBundling.ts';

/** The Security Lake export's source (bundled with `detections/` for the findings' ATT&CK entries). */
export const SECURITY_LAKE_HANDLER_ENTRY = fileURLToPath(
  new URL('../../functions/security-lake-export/handler.ts', import.meta.url),
);

/** State items the export touches: one cursor per source. */
export const LAKE_CURSOR_PKS = 'LAKE#*';

export interface SecurityLakeExportProps {
  bucket: Bucket;
  table: ITable;
  sources: readonly LakeSourceSetting[];
  /** The lake's own KMS key, when it uses one (its ARN). */
  kmsKeyArn?: string;
  /** Hours after an hour ends before it is written (default 6). */
  settleHours?: number;
  alarmTopic?: ITopic;
}

/**
 * Amazon Security Lake custom sources (opt-in, CDK context `securityLake`): an hourly function that maps
 * the archive to OCSF 1.1 (lib/ocsf) and writes each settled hour of each class once, as Parquet in the
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
        SETTLE_HOURS: String(props.settleHours ?? 6),
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
    role.addToPolicy(allow('ListArchive', ['s3:ListBucket'], [props.bucket.bucketArn]));
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
    if (props.kmsKeyArn !== undefined)
      role.addToPolicy(allow('LakeKey', ['kms:GenerateDataKey', 'kms:Decrypt'], [props.kmsKeyArn]));

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
    for (const prefix of [archiveKeys.historyPrefix, archiveKeys.findingsPrefix])
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${archiveArn}/${prefix}*]`,
        reason: `The export reads ${prefix} (Parquet partitions named per run) to map them to OCSF: read-only, one prefix.`,
      });
  }
}

function allow(sid: string, actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions, resources });
}

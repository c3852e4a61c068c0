import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  type AlarmProps,
  ComparisonOperator,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { Architecture, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  SERVICE_NAME,
  SNAPSHOT_METRIC,
} from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { activeKeys } from '../../lib/archive/active/activeKeys.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { ACTIVE_CHUNK_PREFIX } from '../../lib/archive/state/activeChunks.ts';
import { META_PK } from '../../lib/archive/state/versionedConcerns.ts';
import { functionLogsAndRole, LAMBDA_BUNDLING, LAMBDA_RUNTIME, PROJECT_ROOT } from './archiveFunction.ts';
import { withDetections } from './detectionsBundling.ts';
import { acknowledgeTracing } from './nagAcknowledgements.ts';

export const SNAPSHOT_HANDLER_ENTRY = fileURLToPath(
  new URL('../../functions/snapshot-active/handler.ts', import.meta.url),
);

/** State item the snapshot function may read and write (lib/archive/state/dynamoStateStore.ts `ACTIVE`). */
export const ACTIVE_STATE_PK = 'ACTIVE';
/** Manifests of `active/` partitions (lib/archive/state/dynamoStateStore.ts `partitionKey`). */
export const ACTIVE_MANIFEST_PKS = 'PART#active#*';
/** The chunk items of a live-session state too big for one item. */
export const ACTIVE_CHUNK_PKS = `${ACTIVE_CHUNK_PREFIX}*`;

export interface SnapshotFunctionProps {
  bucket: Bucket;
  table: ITable;
  secret: ISecret;
  secretId: string;
  /** ARN of the token HMAC key secret (the archiver's): active rows hash tokens exactly as history does. */
  tokenKeySecretArn: string;
  /** Minutes between snapshots (default 5). */
  intervalMinutes?: number;
  tracing: boolean;
  tokenValues: 'keep' | 'hash' | 'drop';
  /** Where its alarms publish. */
  alarmTopic?: ITopic;
  /** Extra environment (the token-key source the archiver uses). */
  environment?: Record<string, string>;
}

/**
 * The live-session snapshot Lambda: apart from the archiver (own role, own reserved concurrency of 1
 * so snapshots never overlap each other, no lease), started every few minutes, one API request per
 * run. Its role reaches only `active/` objects, their staging area and the state table's `ACTIVE` item.
 */
export class SnapshotFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: Rule;
  readonly alarms: { noSnapshot: Alarm; longSessions: Alarm };

  constructor(scope: Construct, id: string, props: SnapshotFunctionProps) {
    super(scope, id);
    const intervalMinutes = props.intervalMinutes ?? 5;
    const { logGroup, role } = functionLogsAndRole(
      this,
      'tunnel-archiver snapshot function: active/ objects, the ACTIVE state item, its secret, its logs',
    );

    this.fn = new NodejsFunction(this, 'Function', {
      entry: SNAPSHOT_HANDLER_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.minutes(2),
      reservedConcurrentExecutions: 1,
      // A failed snapshot is superseded by the next one minutes later; the gap is recorded then.
      retryAttempts: 0,
      role,
      logGroup,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      description: 'Snapshots the live Pinggy tunnel sessions into active/ (one row per change)',
      environment: {
        ARCHIVE_DEST: `s3://${props.bucket.bucketName}/`,
        ARCHIVE_STATE: `dynamodb://${props.table.tableName}`,
        TUNNEL_API_KEY_SECRET_ID: props.secretId,
        TOKEN_KEY_SECRET_ID: props.tokenKeySecretArn,
        TOKEN_VALUES: props.tokenValues,
        SNAPSHOT_INTERVAL_MINUTES: String(intervalMinutes),
        LOG_LEVEL: 'info',
        ...props.environment,
      },
      // With detections/: the live rules run after each snapshot once the stack gives a findings topic.
      bundling: withDetections(LAMBDA_BUNDLING),
    });
    this.grantLeastPrivilege(role, logGroup, props);

    this.rule = new Rule(this, 'Schedule', {
      schedule: Schedule.rate(Duration.minutes(intervalMinutes)),
      description: 'Snapshots the live tunnel sessions',
    });
    this.rule.addTarget(new LambdaFunction(this.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(5) }));

    const metric = (name: string, period: Duration) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'Maximum',
        period,
      });
    /** One evaluation of the metric's hourly maximum. */
    const hourlyAlarm = (
      id: string,
      metricName: string,
      options: Pick<AlarmProps, 'alarmDescription' | 'threshold' | 'comparisonOperator' | 'treatMissingData'>,
    ) =>
      new Alarm(this, id, {
        ...options,
        metric: metric(metricName, Duration.hours(1)),
        evaluationPeriods: 1,
      });
    this.alarms = {
      noSnapshot: hourlyAlarm('NoSnapshotAlarm', SNAPSHOT_METRIC.SnapshotSucceeded, {
        alarmDescription:
          'No live-session snapshot succeeded in an hour: tunnels opened and closed now go unseen',
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
      }),
      longSessions: hourlyAlarm('LongSessionsAlarm', SNAPSHOT_METRIC.LongSessions, {
        alarmDescription:
          'A tunnel has been open longer than the history window minus 2 days: history will never list it; its active/ rows are its only record',
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    };
    if (props.alarmTopic !== undefined) {
      for (const alarm of Object.values(this.alarms)) alarm.addAlarmAction(new SnsAction(props.alarmTopic));
    }
  }

  private grantLeastPrivilege(role: Role, logGroup: LogGroup, props: SnapshotFunctionProps): void {
    const { bucket, table, secret } = props;
    logGroup.grantWrite(role);
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ActiveRowsNoDelete',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [bucket.arnForObjects(`${activeKeys.prefix}*`)],
      }),
    );
    // The committer stages a file, lists it in the manifest, then publishes it (a conditional copy): in
    // active/'s own staging area, nothing else under _staging/.
    role.addToPolicy(
      new PolicyStatement({
        sid: 'StageActiveRows',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${archiveKeys.stagingAreas.active}*`)],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ListActive',
        effect: Effect.ALLOW,
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${activeKeys.prefix}*`] } },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ActiveStateItems',
        effect: Effect.ALLOW,
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [table.tableArn],
        // The observations item, the manifests of active/ partitions (`PART#active#<dt>`) and META, where
        // the committer notes each file it commits for the next digest (`pendingDigest`); nothing else.
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [ACTIVE_STATE_PK, ACTIVE_MANIFEST_PKS, META_PK],
          },
        },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ActiveStateChunks',
        effect: Effect.ALLOW,
        actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [table.tableArn],
        // A state too big for one item lives in chunk items it names; replaced chunks are deleted.
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [ACTIVE_CHUNK_PKS] } },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadApiKey',
        effect: Effect.ALLOW,
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secret.secretFullArn ?? `${secret.secretArn}-??????`],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadTokenKey',
        effect: Effect.ALLOW,
        actions: ['secretsmanager:GetSecretValue'],
        resources: [props.tokenKeySecretArn],
      }),
    );
    const bucketArn = `<${Stack.of(this).getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${activeKeys.prefix}*]`,
      reason: `Object keys under ${activeKeys.prefix} are generated per snapshot and day; the grant is scoped to that one prefix of the archive bucket.`,
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${archiveKeys.stagingAreas.active}*]`,
      reason: `Staged active rows are named per run and day before the committer publishes them; the grant is active/'s own staging area, ${archiveKeys.stagingAreas.active}.`,
    });
    if (props.tracing) acknowledgeTracing(role);
  }
}

import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { INTEGRITY_ENV } from '../functions/shared/telemetryNames.ts';
import { STATE_TABLE } from '../lib/archive/state/stateTableSpec.ts';
import { asIBucket, asITable } from './cdkTypes.ts';
import { ActiveCatalog } from './constructs/activeCatalog.ts';
import { API_KEY_ENV, ApiKeySecret, setApiKeyCommand } from './constructs/apiKeySecret.ts';
import { ArchiveAlarms, warnWithoutAlarmSubscriber } from './constructs/archiveAlarms.ts';
import { ArchiveBuckets, openReportCommand } from './constructs/archiveBuckets.ts';
import { ArchiveDashboard, dashboardUrl } from './constructs/archiveDashboard.ts';
import {
  ArchiveFunction,
  apiBaseUrlEnvironment,
  archiverEnvironment,
  verifyNowCommand,
} from './constructs/archiveFunction.ts';
import { ArchiveIntegrity } from './constructs/archiveIntegrity.ts';
import { Detections } from './constructs/detections.ts';
import { FanoutOrchestration } from './constructs/fanoutOrchestration.ts';
import { HistoryCatalog } from './constructs/historyCatalog.ts';
import { SecurityLakeExport } from './constructs/securityLakeExport.ts';
import { SnapshotFunction } from './constructs/snapshotFunction.ts';
import { fullVerifyCommand, VerifyJob } from './constructs/verifyJob.ts';
import type { StackSettings } from './stackSettings.ts';

export interface TunnelArchiverStackProps extends StackProps {
  settings: StackSettings;
}

/**
 * Everything a user deploys: archive bucket, state table, key secret, scheduled function, alarms and
 * an Athena-ready catalog. Environment-agnostic (no lookups), so `cdk synth` works offline.
 */
export class TunnelArchiverStack extends Stack {
  readonly buckets: ArchiveBuckets;
  readonly table: TableV2;
  readonly apiKey: ApiKeySecret;
  readonly archiver: ArchiveFunction;
  readonly alarms: ArchiveAlarms;
  readonly catalog: HistoryCatalog;
  /** Live sessions: the 5-minute snapshot function, and the table and views over active/. */
  readonly snapshots: SnapshotFunction;
  readonly activeCatalog: ActiveCatalog;
  readonly integrity: ArchiveIntegrity;
  /** Days bigger than one run: the scheduled state machine and its workers. */
  readonly fanout: FanoutOrchestration;
  /** Detections: scheduled rules in Athena, live rules in the snapshot function, findings. */
  readonly detections: Detections;
  /** The full verify as a resumable job, started on demand (an audit): never scheduled. */
  readonly verifyJob: VerifyJob;
  /** Amazon Security Lake custom sources, when the `securityLake` context names them. */
  readonly securityLake?: SecurityLakeExport;
  /** The operator's CloudWatch page: alarms, runs, records, days at risk, walks, verify, detections, snapshots. */
  readonly dashboard: ArchiveDashboard;

  constructor(scope: Construct, id: string, props: TunnelArchiverStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.buckets = new ArchiveBuckets(this, 'Buckets', {
      objectLockMode: settings.objectLockMode,
      ...(settings.objectLockDays === undefined ? {} : { objectLockDays: settings.objectLockDays }),
    });

    this.table = new TableV2(this, 'State', {
      // The key, billing and protection `tunnel-archiver run` creates a missing table with (STATE_TABLE).
      partitionKey: { name: STATE_TABLE.partitionKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.apiKey = new ApiKeySecret(
      this,
      'ApiKey',
      settings.apiKeySecret === undefined ? {} : { existing: settings.apiKeySecret },
    );

    const engine = {
      bucket: this.buckets.archive,
      table: asITable(this.table),
      secret: this.apiKey.secret,
      secretId: this.apiKey.secretId,
      schedule: settings.schedule,
      tracing: settings.tracing,
      tokenValues: settings.tokenValues,
      ...(settings.apiBaseUrl === undefined ? {} : { apiBaseUrl: settings.apiBaseUrl }),
      ...(settings.windowDays === undefined ? {} : { windowDays: settings.windowDays }),
    };
    this.archiver = new ArchiveFunction(this, 'Archiver', { ...engine, scheduleStartsFunction: false });

    this.alarms = new ArchiveAlarms(this, 'Alarms', {
      fn: this.archiver.fn,
      ...(settings.alarmEmail === undefined ? {} : { alarmEmail: settings.alarmEmail }),
    });
    warnWithoutAlarmSubscriber(this, settings);

    this.integrity = new ArchiveIntegrity(this, 'Integrity', {
      bucket: this.buckets.archive,
      fn: this.archiver.fn,
      role: this.archiver.fn.role as NonNullable<typeof this.archiver.fn.role>,
      topic: this.alarms.topic,
      failures: this.archiver.failures,
      ...(settings.breakGlassRoleArn === undefined ? {} : { breakGlassRoleArn: settings.breakGlassRoleArn }),
    });

    this.fanout = new FanoutOrchestration(this, 'Fanout', {
      bucket: this.buckets.archive,
      role: this.archiver.fn.role as NonNullable<typeof this.archiver.fn.role>,
      environment: {
        ...archiverEnvironment(engine),
        [INTEGRITY_ENV.digestKeyId]: this.integrity.signingKey.keyArn,
        [INTEGRITY_ENV.tokenKeySecretId]: this.integrity.tokenKey.secretArn,
      },
      maxConcurrency: settings.fanoutConcurrency,
      rangePages: settings.fanoutRangePages,
      tracing: settings.tracing,
      schedule: this.archiver.rule,
      failures: this.archiver.failures,
      alarmTopic: this.alarms.topic,
    });
    this.alarms.watchFanoutErrors(this.fanout.fn);
    new CfnOutput(this, 'FanoutStateMachineArn', {
      value: this.fanout.stateMachine.stateMachineArn,
      description: 'The scheduled orchestration: plan, walk days and page ranges in parallel, finish',
    });

    this.verifyJob = new VerifyJob(this, 'VerifyJob', {
      bucket: this.buckets.archive,
      tracing: settings.tracing,
    });

    this.catalog = new HistoryCatalog(this, 'Catalog', {
      archive: asIBucket(this.buckets.archive),
      athenaResults: asIBucket(this.buckets.athenaResults),
    });

    this.snapshots = new SnapshotFunction(this, 'Snapshots', {
      bucket: this.buckets.archive,
      table: asITable(this.table),
      secret: this.apiKey.secret,
      secretId: this.apiKey.secretId,
      tokenKeySecretArn: this.integrity.tokenKey.secretArn,
      tracing: settings.tracing,
      tokenValues: settings.tokenValues,
      alarmTopic: this.alarms.topic,
      environment: {
        ...apiBaseUrlEnvironment(settings.apiBaseUrl),
        ...(settings.snapshotCommitMinutes === undefined
          ? {}
          : { SNAPSHOT_COMMIT_MINUTES: String(settings.snapshotCommitMinutes) }),
      },
    });
    this.activeCatalog = new ActiveCatalog(this, 'ActiveCatalog', {
      archive: asIBucket(this.buckets.archive),
      database: this.catalog.database,
      historyTable: this.catalog.table,
    });
    this.detections = new Detections(this, 'Detections', {
      bucket: this.buckets.archive,
      athenaResults: asIBucket(this.buckets.athenaResults),
      table: asITable(this.table),
      database: this.catalog.database,
      historyTable: this.catalog.table,
      settings: settings.detections,
      snapshotFunction: this.snapshots,
    });
    if (settings.securityLake !== undefined) {
      const { sources, kmsKeyArn, settleHours } = settings.securityLake;
      this.securityLake = new SecurityLakeExport(this, 'SecurityLake', {
        bucket: this.buckets.archive,
        table: asITable(this.table),
        sources,
        ...(kmsKeyArn === undefined ? {} : { kmsKeyArn }),
        ...(settleHours === undefined ? {} : { settleHours }),
        alarmTopic: this.alarms.topic,
      });
    }
    new CfnOutput(this, 'FindingsTopicArn', {
      value: this.detections.topic.topicArn,
      description: 'SNS topic new findings are published to (subscribe your pager or SIEM)',
    });
    new CfnOutput(this, 'SnapshotFunctionName', {
      value: this.snapshots.fn.functionName,
      description: 'Live-session snapshot Lambda (every 5 minutes, writes active/)',
    });

    this.dashboard = new ArchiveDashboard(this, 'Dashboard', {
      alarms: this.alarms,
      archiver: this.archiver.fn,
      fanout: this.fanout,
      verifyJob: this.verifyJob,
      verifyAlarm: this.integrity.verifyAlarm,
      detections: this.detections,
      snapshots: this.snapshots,
      otherAlarms: [this.fanout.failedAlarm],
    });
    new CfnOutput(this, 'DashboardUrl', {
      value: dashboardUrl(this.region, this.dashboard.dashboard.dashboardName),
      description: 'The CloudWatch dashboard: alarms, runs, records at risk, walks, verify, detections',
    });

    const fnName = this.archiver.fn.functionName;
    const outputs: [id: string, value: string, description: string][] = [
      ['ArchiveBucketName', this.buckets.archive.bucketName, 'Parquet archive (history/dt=YYYY-MM-DD/)'],
      ['StateTableName', this.table.tableName, 'DynamoDB state table'],
      ['ApiKeySecretArn', this.apiKey.secret.secretArn, 'Secret holding the Pinggy API key'],
      [
        'DigestSigningKeyArn',
        this.integrity.signingKey.keyArn,
        'KMS key that signs digests/ (kept if the stack is deleted)',
      ],
      [
        'TokenKeySecretArn',
        this.integrity.tokenKey.secretArn,
        'Token HMAC key: back it up; kept if the stack is deleted',
      ],
      [
        'VerifyNowCommand',
        verifyNowCommand(fnName),
        'Verify the archive now (digest chain, files, API window)',
      ],
      [
        'OpenReportCommand',
        openReportCommand(this.buckets.archive.bucketName),
        'Prints a presigned URL (1 hour) of the report the weekly verify writes; open it in a browser',
      ],
      [
        'FullVerifyCommand',
        fullVerifyCommand(this.verifyJob.stateMachine.stateMachineArn),
        'Start a full verify job (an audit); start it again with the same jobId to resume it',
      ],
      ['FunctionName', fnName, 'Archiver Lambda'],
      ['AthenaWorkGroup', this.catalog.workgroup.name, 'Athena workgroup (database tunnel_archive)'],
      ['AlarmTopicArn', this.alarms.topic.topicArn, 'SNS topic the alarms publish to'],
      [
        'SetApiKeyCommand',
        setApiKeyCommand(this.apiKey.secretId),
        `Run once after deploy, with ${API_KEY_ENV} set in your shell (the command refuses an empty one)`,
      ],
      [
        'RunNowCommand',
        `aws lambda invoke --function-name ${fnName} --invocation-type Event --payload '{}' --cli-binary-format raw-in-base64-out /dev/stdout`,
        'Start a run now instead of waiting for the schedule',
      ],
    ];
    for (const [id, value, description] of outputs) new CfnOutput(this, id, { value, description });
  }
}

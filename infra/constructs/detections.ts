import { fileURLToPath } from 'node:url';
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { CfnTable } from 'aws-cdk-lib/aws-glue';
import { Effect, type IRole, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct, type IConstruct, type IDependable } from 'constructs';
import { DETECT_SERVICE } from '../../functions/shared/detectTelemetry.ts';
import { FINDINGS_COLUMNS, FINDINGS_TABLE } from '../../lib/analytics/detect/findingsDataset.ts';
import { loadRulesSync } from '../../lib/analytics/detect/loadRules.ts';
import { parseDetectionSettings } from '../../lib/analytics/detect/ruleSettings.ts';
import { FINDING_PK_PREFIX } from '../../lib/analytics/detect/versionedFindingLedger.ts';
import { ocsfViews } from '../../lib/analytics/ocsf/ocsfViews.ts';
import {
  ACTIVE_TABLE,
  HISTORY_TABLE,
  LOST_SESSIONS_VIEW,
  NAMED_SESSIONS_VIEW,
} from '../../lib/analytics/query/activeViews.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { META_PK } from '../../lib/archive/state/versionedConcerns.ts';
import { glueView } from './activeCatalog.ts';
import { functionLogsAndRole, LAMBDA_BUNDLING, LAMBDA_RUNTIME, PROJECT_ROOT } from './archiveFunction.ts';
import { withDetections } from './detectionsBundling.ts';
import { DATABASE_NAME, parquetGlueTable, WORKGROUP_NAME } from './historyCatalog.ts';

/** State items the detection code may touch: finding claims and the manifests of `findings/` partitions. */
export const FINDING_CLAIM_PKS = `${FINDING_PK_PREFIX}*`;
export const FINDINGS_MANIFEST_PKS = 'PART#findings#*';

/** The detect Lambda's source (bundled with `detections/` beside it). */
export const DETECT_HANDLER_ENTRY = fileURLToPath(
  new URL('../../functions/detect/handler.ts', import.meta.url),
);

export interface DetectionsProps {
  bucket: Bucket;
  athenaResults: IBucket;
  table: ITable;
  database: IDependable;
  historyTable: IDependable;
  /** Minutes between evaluations: a rule runs on the first one at or after each tick of its own schedule. */
  intervalMinutes?: number;
  /** The deployment's overrides (CDK context `detections`), JSON as `tunnel-archiver detect --settings` reads. */
  settings?: unknown;
  /** The snapshot function: it evaluates the live rules on each snapshot and publishes to the same topic. */
  snapshotFunction?: { fn: lambda.IFunction & { role?: IRole | undefined } };
}

/**
 * Detections in AWS: a schedule, the detect Lambda (runs the due rules in Athena and polls them), the
 * findings topic (KMS, TLS only), the Glue table over `findings/`, the OCSF views (sessions as Tunnel
 * Activity 4014, findings as Detection Finding 2004) and a role scoped to the workgroup, the results
 * bucket, the tables it reads and the state items it claims.
 */
export class Detections extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;
  readonly topic: Topic;
  readonly findingsTable: CfnTable;
  readonly sessionsOcsfView: CfnTable;
  readonly findingsOcsfView: CfnTable;

  constructor(scope: Construct, id: string, props: DetectionsProps) {
    super(scope, id);
    const intervalMinutes = props.intervalMinutes ?? 5;
    // A typo in the overrides (an unknown rule or setting) fails the synth, not the first evaluation.
    parseDetectionSettings(props.settings ?? {}, loadRulesSync(), 'CDK context detections');
    this.findingsTable = parquetGlueTable(this, 'FindingsTable', props.bucket, props.database, {
      name: FINDINGS_TABLE,
      columns: FINDINGS_COLUMNS,
      prefix: archiveKeys.findingsPrefix,
      description:
        'What the detection rules found (one row per delivered revision of an incident); dt = UTC day the row was written',
      dtComment: 'UTC day the row was written, YYYY-MM-DD',
    });
    const after = [props.database, props.historyTable, this.findingsTable];
    // The OCSF views: the very SQL `tunnel-archiver export --ocsf` runs in DuckDB (lib/analytics/ocsf).
    const views = ocsfViews(FINDINGS_TABLE, loadRulesSync());
    this.sessionsOcsfView = glueView(this, 'SessionsOcsfView', views.sessions, after);
    this.findingsOcsfView = glueView(this, 'FindingsOcsfView', views.findings, after);

    const key = new Key(this, 'TopicKey', {
      enableKeyRotation: true,
      description: 'Encrypts the tunnel-archiver findings topic',
    });
    this.topic = new Topic(this, 'Topic', {
      masterKey: key,
      enforceSSL: true,
      displayName: 'tunnel-archiver findings',
    });

    const { logGroup, role } = functionLogsAndRole(
      this,
      'tunnel-archiver detect function: Athena in its workgroup, the archive tables, findings/, its claims, its topic',
    );
    const environment: Record<string, string> = {
      ARCHIVE_DEST: `s3://${props.bucket.bucketName}/`,
      ARCHIVE_STATE: `dynamodb://${props.table.tableName}`,
      WORKGROUP: WORKGROUP_NAME,
      DATABASE: DATABASE_NAME,
      FINDINGS_TOPIC_ARN: this.topic.topicArn,
      SCHEDULE_MINUTES: String(intervalMinutes),
      DETECTION_SETTINGS: JSON.stringify(props.settings ?? {}),
      POWERTOOLS_SERVICE_NAME: DETECT_SERVICE,
      LOG_LEVEL: 'info',
    };
    // One evaluation at a time (reserved concurrency 1); a concurrent one would still deliver each
    // finding once (conditional claims). A failed evaluation is retried by the next tick, not by Lambda.
    const shape = { runtime: LAMBDA_RUNTIME, architecture: lambda.Architecture.ARM_64, memorySize: 512 };
    this.fn = new NodejsFunction(this, 'Function', {
      ...shape,
      entry: DETECT_HANDLER_ENTRY,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      timeout: Duration.minutes(10),
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      role,
      logGroup,
      description: 'Runs the detection rules (detections/) in Athena and publishes new findings',
      environment,
      bundling: withDetections(LAMBDA_BUNDLING),
    });
    this.rule = new events.Rule(this, 'Schedule', {
      schedule: events.Schedule.rate(Duration.minutes(intervalMinutes)),
      description: 'Evaluates the detection rules that are due',
    });
    this.rule.addTarget(
      new targets.LambdaFunction(this.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(10) }),
    );
    this.grantLeastPrivilege(role, logGroup, props);
    // Publishing to a KMS-encrypted topic: data keys of that one key (no wildcard actions).
    key.grant(role, 'kms:Decrypt', 'kms:GenerateDataKey');

    const snapshot = props.snapshotFunction?.fn;
    if (snapshot !== undefined) {
      (snapshot as NodejsFunction).addEnvironment('FINDINGS_TOPIC_ARN', this.topic.topicArn);
      (snapshot as NodejsFunction).addEnvironment('DETECTION_SETTINGS', JSON.stringify(props.settings ?? {}));
      snapshot.role?.addToPrincipalPolicy(this.publishStatement());
      snapshot.role?.addToPrincipalPolicy(this.putEventsStatement());
      key.grant(snapshot, 'kms:Decrypt', 'kms:GenerateDataKey');
      // It writes each live finding to findings/ before publishing it, through the committer as detect does.
      snapshot.role?.addToPrincipalPolicy(this.findingsWriteStatement(props.bucket));
      snapshot.role?.addToPrincipalPolicy(this.stageFindingsStatement(props.bucket));
      snapshot.role?.addToPrincipalPolicy(
        claimsStatement(props.table, [FINDING_CLAIM_PKS, FINDINGS_MANIFEST_PKS, META_PK]),
      );
      if (snapshot.role !== undefined) acknowledgeFindingsWrite(snapshot.role, props.bucket);
    }
  }

  /** events:PutEvents on the account's default bus alone (every new and updated finding). */
  private putEventsStatement(): PolicyStatement {
    const stack = Stack.of(this);
    return new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['events:PutEvents'],
      resources: [
        stack.formatArn({
          service: 'events',
          resource: 'event-bus',
          resourceName: 'default',
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        }),
      ],
    });
  }

  /** Reads and writes under findings/ (no delete): what the committer does to publish a findings file. */
  private findingsWriteStatement(bucket: Bucket): PolicyStatement {
    return allow(
      'FindingsNoDelete',
      ['s3:GetObject', 's3:PutObject'],
      [bucket.arnForObjects(`${archiveKeys.findingsPrefix}*`)],
    );
  }

  /** sns:Publish on the findings topic alone (grantPublish would add wildcard KMS actions). */
  private publishStatement(): PolicyStatement {
    return new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['sns:Publish'],
      resources: [this.topic.topicArn],
    });
  }

  private grantLeastPrivilege(role: Role, logGroup: logs.LogGroup, props: DetectionsProps): void {
    const { bucket, athenaResults, table } = props;
    const stack = Stack.of(this);
    logGroup.grantWrite(role);
    role.addToPolicy(this.publishStatement());
    role.addToPolicy(this.putEventsStatement());
    const arn = (service: string, resource: string) => {
      const [type = resource, ...name] = resource.split('/');
      return name.length === 0
        ? stack.formatArn({ service, resource: type, arnFormat: ArnFormat.NO_RESOURCE_NAME })
        : stack.formatArn({
            service,
            resource: type,
            resourceName: name.join('/'),
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          });
    };
    role.addToPolicy(
      allow(
        'AthenaInWorkgroup',
        // What functions/detect/athenaRuleEngine.ts calls (a query past its wait is left to the workgroup).
        ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'],
        [arn('athena', `workgroup/${WORKGROUP_NAME}`)],
      ),
    );
    const tables = [HISTORY_TABLE, ACTIVE_TABLE, NAMED_SESSIONS_VIEW, LOST_SESSIONS_VIEW, FINDINGS_TABLE];
    role.addToPolicy(
      allow(
        'GlueArchiveTables',
        ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
        [
          arn('glue', 'catalog'),
          arn('glue', `database/${DATABASE_NAME}`),
          ...tables.map((t) => arn('glue', `table/${DATABASE_NAME}/${t}`)),
        ],
      ),
    );
    const objects = (prefix: string) => bucket.arnForObjects(`${prefix}*`);
    role.addToPolicy(
      allow(
        'ReadArchiveForAthena',
        ['s3:GetObject'],
        [objects(archiveKeys.historyPrefix), objects(archiveKeys.activePrefix)],
      ),
    );
    role.addToPolicy(this.findingsWriteStatement(bucket));
    role.addToPolicy(this.stageFindingsStatement(bucket));
    role.addToPolicy(allow('ListArchive', ['s3:ListBucket', 's3:GetBucketLocation'], [bucket.bucketArn]));
    role.addToPolicy(
      allow(
        'AthenaResults',
        ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        [athenaResults.arnForObjects('results/*')],
      ),
    );
    // What Athena asks of the caller on its results location (the Athena user guide, "Access to Amazon S3").
    role.addToPolicy(
      allow(
        'AthenaResultsBucket',
        ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'],
        [athenaResults.bucketArn],
      ),
    );
    // Its claims, the manifests of findings/ partitions, and META, where the committer notes each file it
    // commits for the next digest (`pendingDigest`).
    role.addToPolicy(claimsStatement(table, [FINDING_CLAIM_PKS, FINDINGS_MANIFEST_PKS, META_PK]));

    const archiveArn = `<${stack.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
    const resultsArn = `<${stack.getLogicalId(athenaResults.node.defaultChild as CfnBucket)}.Arn>`;
    const acks: [string, string][] = [
      [
        `Resource::${archiveArn}/${archiveKeys.historyPrefix}*`,
        "Athena reads history/ with the caller's credentials: read-only, one prefix of the archive bucket.",
      ],
      [
        `Resource::${archiveArn}/${archiveKeys.activePrefix}*`,
        "Athena reads active/ (the live rules' table and the loss view) with the caller's credentials: read-only, one prefix.",
      ],
      [
        `Resource::${resultsArn}/results/*`,
        'Athena writes each query result under results/ of the results bucket with a generated name.',
      ],
    ];
    for (const [what, reason] of acks)
      Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[${what}]`, reason });
    acknowledgeFindingsWrite(role, bucket);
  }

  /** findings/' own staging area alone: the committer stages each findings file there before listing it. */
  private stageFindingsStatement(bucket: Bucket): PolicyStatement {
    return allow(
      'StageFindings',
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      [bucket.arnForObjects(`${archiveKeys.stagingAreas.findings}*`)],
    );
  }
}

/** The cdk-nag acknowledgements of `findingsWriteStatement`'s and `stageFindingsStatement`'s wildcards. */
function acknowledgeFindingsWrite(role: IConstruct, bucket: Bucket): void {
  const archiveArn = `<${Stack.of(role).getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
  Validations.of(role).acknowledge(
    {
      id: `AwsSolutions-IAM5[Resource::${archiveArn}/${archiveKeys.findingsPrefix}*]`,
      reason:
        'Findings files are named per evaluation and day; written once through the committer, never deleted.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::${archiveArn}/${archiveKeys.stagingAreas.findings}*]`,
      reason: `Staged findings files are named per evaluation and day before the committer publishes them; the grant is findings/' own staging area, ${archiveKeys.stagingAreas.findings}.`,
    },
  );
}

/** An Allow statement with a sid. */
function allow(sid: string, actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions, resources });
}

/** GetItem/PutItem on the state table, limited to items whose key starts as given. */
function claimsStatement(table: ITable, leadingKeys: string[]): PolicyStatement {
  return new PolicyStatement({
    sid: `StateItems${leadingKeys.length}`,
    effect: Effect.ALLOW,
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
    resources: [table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
  });
}

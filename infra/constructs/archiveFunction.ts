import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import type { TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { ACTIVE_CHUNK_PREFIX } from '../../lib/archive/state/activeChunks.ts';
import { dynamoStateUrl, s3DestUrl } from '../../lib/foundation/url/storeUrl.ts';
import { secretResourceArn } from './apiKeySecret.ts';
import { PREFIX } from './archiveBuckets.ts';
import { acknowledgeTracing } from './nagAcknowledgements.ts';

export interface ArchiveFunctionProps {
  bucket: Bucket;
  table: ITable;
  secret: ISecret;
  /** Value of TUNNEL_API_KEY_SECRET_ID: the secret's ARN or the name it was imported by. */
  secretId: string;
  schedule: string;
  tracing: boolean;
  tokenValues: TokenPolicy;
  /** Whether the schedule invokes this function (false: another target, the fan-out, is added to `rule`). */
  scheduleStartsFunction?: boolean;
  /** TUNNEL_API_BASE_URL (the `apiBaseUrl` context); unset: the functions use the documented endpoint. */
  apiBaseUrl?: string;
  /** WINDOW_DAYS (the `windowDays` context); unset: the functions' default. */
  windowDays?: number;
}

/** The environment of every function that runs the engine (the archiver and the fan-out's workers). */
export function archiverEnvironment(props: ArchiveFunctionProps): Record<string, string> {
  return {
    ARCHIVE_DEST: s3DestUrl(props.bucket.bucketName),
    ARCHIVE_STATE: dynamoStateUrl(props.table.tableName),
    TUNNEL_API_KEY_SECRET_ID: props.secretId,
    TOKEN_VALUES: props.tokenValues,
    LOG_LEVEL: 'info',
    ...apiBaseUrlEnvironment(props.apiBaseUrl),
    ...(props.windowDays === undefined ? {} : { WINDOW_DAYS: String(props.windowDays) }),
  };
}

/**
 * The command that verifies the archive now (the stack's `VerifyNowCommand` output): a synchronous invoke
 * that waits as long as the function may run (`--cli-read-timeout 0`; the CLI's own limit is 60 s, far
 * shorter than a verify of the window), its result printed on stdout.
 */
export function verifyNowCommand(functionName: string): string {
  return `aws lambda invoke --function-name ${functionName} --cli-read-timeout 0 --payload '{"verify":true}' --cli-binary-format raw-in-base64-out /dev/stdout`;
}

/** The API's base URL for a function that calls it, when the stack's `apiBaseUrl` context sets one. */
export function apiBaseUrlEnvironment(apiBaseUrl: string | undefined): Record<string, string> {
  return apiBaseUrl === undefined ? {} : { TUNNEL_API_BASE_URL: apiBaseUrl };
}

/**
 * The staging areas the archiver's role writes (`archiveKeys.stagingAreas`): history, the fan-out's
 * bookkeeping and a cut walk's ids are its alone; active/'s it shares with the snapshot function (every run
 * snapshots the live sessions too).
 */
export const ARCHIVER_STAGING_AREAS = [
  archiveKeys.stagingAreas.history,
  archiveKeys.stagingAreas.active,
  archiveKeys.stagingAreas.fanout,
  archiveKeys.stagingAreas.walks,
] as const;

/** Repository root (this file is infra/constructs/archiveFunction.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HANDLER_ENTRY = fileURLToPath(
  new URL('../../functions/archive-history/handler.ts', import.meta.url),
);

/**
 * The Lambda's Node major: the newest LTS that aws-cdk-lib offers. The bundle test runs the bundle under
 * this very major (tools/lambda-node), and on it the archive is written with ZSTD (node:zlib zstd).
 */
export const LAMBDA_NODE_MAJOR = 24;
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/** ESM bundles still meet CommonJS dependencies that call `require`; this gives them one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Builtins the bundle loads with `require()` instead of `import`. Importing a builtin as ESM makes Node
 * build a facade of all its exports, which reads every lazy getter: for `node:http` on Node 24 that
 * loads Node's own copy of undici (its WebSocket classes). Measured on the Lambda's Node, 15 ms of cold
 * start for these three (bench/PROFILE.md). Each name has a one-line CommonJS file in
 * infra/bundling/builtins/; an alias also covers subpaths (`node:x/y`), so only builtins without
 * subpath modules belong here.
 */
export const BUILTINS_BY_REQUIRE = ['http', 'https', 'process'] as const;

/** How every function of the stack is bundled: one ESM file for the Lambda's Node major, SDK included. */
export const LAMBDA_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: `node${LAMBDA_NODE_MAJOR}`,
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  // The map is shipped beside the bundle but not loaded: `--enable-source-maps` parses all of it at every
  // cold start (about 100 ms of the archiver's, bench/PROFILE.md). Set NODE_OPTIONS=--enable-source-maps
  // on a function to map its stack traces while debugging (docs/operations.md).
  sourceMap: true,
  sourcesContent: false,
  // Bundle the AWS SDK too: the code runs against the exact versions it was tested with. classic-level
  // (a native LevelDB) holds the CLI's kernel locks (lib/foundation/process/kernelLock.ts); a Lambda is handed no
  // kernel liveness (ArchiveDeps.incarnationLiveness), so no handler imports it. It stays external so
  // that a path back to it shows in the bundle's metafile, where the bundle test fails on any import
  // the Lambda runtime does not provide.
  externalModules: ['classic-level'],
  forceDockerBundling: false,
  // Resolved in the bundling's working directory, the project root.
  esbuildArgs: {
    '--alias': BUILTINS_BY_REQUIRE.map((name) => `node:${name}=./infra/bundling/builtins/${name}.cjs`),
  },
};

/** The memory (MB) at which Lambda gives a function one full vCPU; below it, a share in proportion. */
export const FULL_VCPU_MEMORY_MB = 1_769;

/**
 * The memory of every function that runs the engine (MiB): a full vCPU. A page's work is CPU-bound where a
 * walk's requests are not: at 1,024 MB (0.58 of a vCPU) a resumed big day's runs fetched 0.76–0.77 of their
 * latency bound with pauses of up to 194 ms between requests; at a full vCPU, 0.88–0.89 (bench/RESULTS.md,
 * `big-day-*-share`). What it costs a month is in docs/operations.md; `finish-union` measures the largest
 * day it holds. The full verify job, which walks no API, keeps its own (`VERIFY_JOB_ASSUMPTIONS`).
 */
export const ENGINE_MEMORY_MIB = FULL_VCPU_MEMORY_MB;

/**
 * The exec wrapper every function that runs the engine starts through (`AWS_LAMBDA_EXEC_WRAPPER`): Lambda
 * starts the script with its Node and that Node's arguments, and the script starts them with V8 on the
 * main thread alone (`--single-threaded`, which Node refuses in NODE_OPTIONS). At a function's vCPU, V8's
 * compiler and collector threads spent the CFS quota beside the walk's thread, and the whole function then
 * waited out the period: pauses of up to 175 ms between a resumed walk's requests, none over 93 ms without
 * them (bench/PROFILE.md). `source` is the script in this repository, `file` its name beside the bundled
 * handler (a copy keeps its mode, and the asset's zip keeps the mode of each file), `path` where Lambda
 * finds it.
 */
export const ENGINE_EXEC_WRAPPER = {
  source: fileURLToPath(new URL('../bundling/singleThreadedNode.sh', import.meta.url)),
  file: 'singleThreadedNode.sh',
  path: '/var/task/singleThreadedNode.sh',
} as const;

/** {@link LAMBDA_BUNDLING} plus the engine's exec wrapper copied beside the bundled handler. */
export const ENGINE_BUNDLING: BundlingOptions = {
  ...LAMBDA_BUNDLING,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => [
      `cp "${inputDir}/infra/bundling/${ENGINE_EXEC_WRAPPER.file}" "${outputDir}/${ENGINE_EXEC_WRAPPER.file}"`,
    ],
  },
};

/**
 * What every function that runs the engine shares: one ESM bundle, Node 24 on arm64, a full vCPU, 15 minutes,
 * started through {@link ENGINE_EXEC_WRAPPER}; `environment` is the function's own, the wrapper's added.
 */
export function engineFunctionProps(entry: string, environment: Record<string, string>) {
  return {
    entry,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: LAMBDA_RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: ENGINE_MEMORY_MIB,
    timeout: Duration.minutes(15),
    bundling: ENGINE_BUNDLING,
    environment: { ...environment, AWS_LAMBDA_EXEC_WRAPPER: ENGINE_EXEC_WRAPPER.path },
  };
}

/**
 * A function's own log group (kept a year, retained when the stack goes) and its own role (no managed
 * policies; each construct grants what its function needs), as every Lambda of the stack has them.
 */
export function functionLogsAndRole(
  scope: Construct,
  description: string,
): { logGroup: LogGroup; role: Role } {
  const logGroup = new LogGroup(scope, 'Logs', {
    retention: RetentionDays.ONE_YEAR,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new Role(scope, 'Role', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description,
  });
  return { logGroup, role };
}

/** Listing the archive bucket (what a run and a verify do to find the files they read). */
export function listArchiveStatement(bucket: { bucketArn: string }): PolicyStatement {
  return new PolicyStatement({
    sid: 'ListArchive',
    effect: Effect.ALLOW,
    actions: ['s3:ListBucket'],
    resources: [bucket.bucketArn],
  });
}

/**
 * The archiver Lambda with its own role (no managed policies), log group, failure queue and schedule.
 * One writer only (reserved concurrency 1); failed async invocations land in the failure queue.
 */
export class ArchiveFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly failures: Queue;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ArchiveFunctionProps) {
    super(scope, id);
    this.failures = new Queue(this, 'Failures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter/failure destination of the function and its schedule; a DLQ of a DLQ adds nothing.',
    });

    const { logGroup, role } = functionLogsAndRole(
      this,
      'tunnel-archiver function: write-not-delete on history/, its table, its secret, its logs',
    );

    this.fn = new NodejsFunction(this, 'Function', {
      ...engineFunctionProps(HANDLER_ENTRY, archiverEnvironment(props)),
      reservedConcurrentExecutions: 1,
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(this.failures),
      role,
      logGroup,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      description: 'Archives Pinggy tunnel-session history to Parquet on S3, exactly once',
    });

    // No AwsSolutions-L1 acknowledgement: Node.js 24 is the newest Node runtime aws-cdk-lib knows, so
    // the rule passes. When a newer one appears, cdk-nag flags it and the move (or an acknowledgement)
    // is a tested decision: the bundle test runs the bundle under LAMBDA_NODE_MAJOR.
    this.grantLeastPrivilege(role, logGroup, props);

    this.rule = new Rule(this, 'Schedule', {
      schedule: Schedule.expression(props.schedule),
      description: 'Runs the tunnel archiver',
    });
    // The schedule starts the fan-out's state machine (see docs/fanout.md); the function stays for runs
    // started by hand, backfills and verify.
    if (props.scheduleStartsFunction ?? true)
      this.rule.addTarget(
        new LambdaFunction(this.fn, {
          retryAttempts: 4,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: this.failures,
        }),
      );
  }

  private grantLeastPrivilege(role: Role, logGroup: LogGroup, props: ArchiveFunctionProps): void {
    const { bucket, table, secret } = props;
    logGroup.grantWrite(role);
    const objects = (prefix: string) => bucket.arnForObjects(`${prefix}*`);
    // Data and quarantine objects: written and read back, never deleted (no s3:DeleteObject here).
    role.addToPolicy(
      new PolicyStatement({
        sid: 'WriteDataNoDelete',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:PutObject'],
        // Every dataset a run writes or digests: history, the active-list snapshot it takes, the findings
        // the detect function committed (digested, and published when pending), quarantine, its digest.
        resources: [
          objects(PREFIX.history),
          objects(PREFIX.active),
          objects(PREFIX.findings),
          objects(PREFIX.quarantine),
          objects(PREFIX.digests),
        ],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'WriteWeeklyReport',
        effect: Effect.ALLOW,
        // The page the weekly verify replaces, and its result beside it (reports/ is not write-once).
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(archiveKeys.report), bucket.arnForObjects(archiveKeys.lastVerify)],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadLastFullVerify',
        effect: Effect.ALLOW,
        // The last full verify job's result: the weekly verify records its time, and the report shows it.
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects(archiveKeys.lastFullVerify)],
      }),
    );
    // One writer per staging area: history, the fan-out's bookkeeping and a cut walk's ids are the
    // archiver's alone (and the fan-out workers', who run as this role); see ARCHIVER_STAGING_AREAS.
    role.addToPolicy(
      new PolicyStatement({
        sid: 'StageHistory',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: ARCHIVER_STAGING_AREAS.map(objects),
      }),
    );
    // Publishing what others committed (a run publishes every listed-but-unpublished file first) and the
    // orphan sweep read and remove staged files of every area; they never write one.
    role.addToPolicy(
      new PolicyStatement({
        sid: 'PublishAndSweepStaged',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:DeleteObject'],
        resources: [objects(PREFIX.staging)],
      }),
    );
    role.addToPolicy(listArchiveStatement(bucket));
    role.addToPolicy(
      new PolicyStatement({
        sid: 'StateTable',
        effect: Effect.ALLOW,
        // Exactly the calls lib/archive/state/ sends, DeleteItem (chunks only) aside (the table is created by the stack).
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:Scan'],
        resources: [table.tableArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ActiveStateChunks',
        effect: Effect.ALLOW,
        // Each run snapshots the active list too: replaced chunks of a big state are deleted, nothing else.
        actions: ['dynamodb:DeleteItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ACTIVE_CHUNK_PREFIX}*`] } },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadApiKey',
        effect: Effect.ALLOW,
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secretResourceArn(secret)],
      }),
    );

    // cdk-nag names a wildcard finding after the resolved resource: `<BucketLogicalId.Arn>/prefix/*`.
    const bucketArn = `<${Stack.of(this).getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
    for (const prefix of [
      PREFIX.history,
      PREFIX.active,
      PREFIX.findings,
      PREFIX.quarantine,
      PREFIX.staging,
      ...ARCHIVER_STAGING_AREAS,
    ]) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${prefix}*]`,
        reason: `Object keys under ${prefix} are generated per run and day; the grant is scoped to that one prefix of the archive bucket.`,
      });
    }
    if (props.tracing) acknowledgeTracing(role);
  }
}

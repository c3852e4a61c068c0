import { fileURLToPath } from 'node:url';
import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Effect, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { DistributedMap, JsonPath, type StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { s3DestUrl } from '../../lib/foundation/url/storeUrl.ts';
import { VERIFY_JOB_ASSUMPTIONS } from '../../lib/integrity/verify/verifyJobCost.ts';
import { verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { asIBucket } from '../cdkTypes.ts';
import { engineFunctionProps, functionLogsAndRole, listArchiveStatement } from './archiveFunction.ts';
import { lambdaStep, TRANSIENT_RETRY } from './fanoutOrchestration.ts';
import { loggedStateMachine } from './loggedStateMachine.ts';
import { acknowledgeDistributedMap, acknowledgeTracing } from './nagAcknowledgements.ts';
import { ScopedJsonItemReader, ScopedResultWriter } from './scopedMapIo.ts';

export const VERIFY_JOB_ENTRY = fileURLToPath(
  new URL('../../functions/verify-job/handler.ts', import.meta.url),
);

/** Where the Distributed Map writes its own manifest and item outputs (the items' results are under their job). */
export const VERIFY_JOB_MAP_RESULTS_PREFIX = `${archiveKeys.verifyJobsPrefix}map-results`;

/** The only objects the map reads its items from: each job's plan of items (`verifyJobKeys.items`). */
export const VERIFY_JOB_ITEMS_KEYS = verifyJobKeys.items('*');

/** Folders checked at once by default: each reads its files 8 at a time. */
export const VERIFY_JOB_CONCURRENCY = 20;

/** How long one job may run before Step Functions stops it (start it again: it resumes). */
export const VERIFY_JOB_TIMEOUT = Duration.hours(24);

/** The command that starts a job (the stack's `FullVerifyCommand` output; docs/integrity.md shows it). */
export function fullVerifyCommand(stateMachineArn: string): string {
  return `aws stepfunctions start-execution --state-machine-arn ${stateMachineArn} --input '{"jobId":"audit-YYYY-MM-DD"}'`;
}

export interface VerifyJobProps {
  bucket: Bucket;
  tracing: boolean;
  maxConcurrency?: number;
}

/**
 * The full verify as a job a team starts for an audit: a Standard state machine that plans (the chain's
 * head, one item a folder of every listed prefix, plus the chain), checks the items in a Distributed Map of
 * Lambda workers (any failed item fails the job; a job started again with the same `jobId` skips the items
 * it finished), and merges their results into one. Only runs when started: nothing is scheduled.
 */
export class VerifyJob extends Construct {
  readonly fn: NodejsFunction;
  readonly stateMachine: StateMachine;
  readonly map: DistributedMap;

  constructor(scope: Construct, id: string, props: VerifyJobProps) {
    super(scope, id);
    const maxConcurrency = props.maxConcurrency ?? VERIFY_JOB_CONCURRENCY;
    const { logGroup, role } = functionLogsAndRole(
      this,
      'tunnel-archiver verify job: reads the archive, writes only its job results, its logs',
    );
    this.fn = new NodejsFunction(this, 'Function', {
      ...engineFunctionProps(VERIFY_JOB_ENTRY, {
        ARCHIVE_DEST: s3DestUrl(props.bucket.bucketName),
        LOG_LEVEL: 'info',
      }),
      // Reads and hashes 1 MiB ranges, 8 at a time: no walk with a latency bound to keep up with, so not the
      // walkers' full vCPU; its cost model assumes this memory (VERIFY_JOB_ASSUMPTIONS).
      memorySize: VERIFY_JOB_ASSUMPTIONS.memoryGb * 1024,
      reservedConcurrentExecutions: maxConcurrency + 1,
      retryAttempts: 0,
      role,
      logGroup,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      description: 'Tunnel archiver full verify job: plan, check one folder or the chain, merge',
    });
    logGroup.grantWrite(role);
    const { bucket } = props;
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadArchive',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject'],
        resources: [
          ...digestKeys.writeOncePrefixes.map((p) => bucket.arnForObjects(`${p}*`)),
          bucket.arnForObjects(`${archiveKeys.verifyJobsPrefix}*`),
        ],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'WriteJobResults',
        effect: Effect.ALLOW,
        actions: ['s3:PutObject'],
        resources: [
          bucket.arnForObjects(`${archiveKeys.verifyJobsPrefix}*`),
          bucket.arnForObjects(archiveKeys.lastFullVerify),
        ],
      }),
    );
    role.addToPolicy(listArchiveStatement(bucket));

    const step = (name: string, payload: Record<string, unknown>, resultPath: string) =>
      lambdaStep(this, name, this.fn, payload, resultPath);

    const plan = step('Plan', { step: 'plan', jobId: JsonPath.stringAt('$.jobId') }, '$.plan');
    const check = new LambdaInvoke(this, 'CheckItem', {
      lambdaFunction: this.fn,
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    }).addRetry(TRANSIENT_RETRY);
    const ibucket = asIBucket(bucket);
    this.map = new DistributedMap(this, 'CheckItems', {
      maxConcurrency,
      // Its own items and results only: CDK's reader and writer would grant the whole bucket.
      itemReader: new ScopedJsonItemReader({
        bucket: ibucket,
        key: JsonPath.stringAt('$.plan.itemsKey'),
        itemsKeys: VERIFY_JOB_ITEMS_KEYS,
      }),
      itemSelector: {
        step: 'item',
        jobId: JsonPath.stringAt('$.plan.jobId'),
        head: JsonPath.objectAt('$.plan.head'),
        item: JsonPath.objectAt('$$.Map.Item.Value'),
      },
      // Any item that still fails after its retries fails the job: started again, it resumes.
      toleratedFailurePercentage: 0,
      resultWriter: new ScopedResultWriter({ bucket: ibucket, prefix: VERIFY_JOB_MAP_RESULTS_PREFIX }),
      mapExecutionType: StateMachineType.STANDARD,
      resultPath: JsonPath.DISCARD,
    });
    this.map.itemProcessor(check);
    const merge = step('Merge', { step: 'merge', jobId: JsonPath.stringAt('$.jobId') }, '$.result');

    this.stateMachine = loggedStateMachine(this, plan.next(this.map).next(merge), VERIFY_JOB_TIMEOUT);
    this.acknowledge(bucket, role, props.tracing);
  }

  /** cdk-nag's wildcard findings, each named as cdk-nag resolves it. */
  private acknowledge(bucket: Bucket, role: IRole, tracing: boolean): void {
    const stack = Stack.of(this);
    const id = (c: Construct) => stack.getLogicalId(c.node.defaultChild as CfnElement);
    const bucketObjects = (p: string) => `Resource::<${id(bucket)}.Arn>/${p}*`;
    if (tracing) acknowledgeTracing(role);
    const fnAcks: [string, string][] = [
      ...digestKeys.writeOncePrefixes.map((p): [string, string] => [
        bucketObjects(p),
        `Reads every object under ${p}: a full verify reads the whole archive (read-only).`,
      ]),
      [
        bucketObjects(archiveKeys.verifyJobsPrefix),
        'Reads and writes its own plan and item results under verify-jobs/ (keys are per job and item).',
      ],
    ];
    for (const [resource, reason] of fnAcks) {
      Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[${resource}]`, reason });
    }
    acknowledgeDistributedMap(this.stateMachine, {
      fn: this.fn,
      bucket,
      itemsKeys: VERIFY_JOB_ITEMS_KEYS,
      resultsPrefix: VERIFY_JOB_MAP_RESULTS_PREFIX,
      what: 'verify job',
    });
  }
}

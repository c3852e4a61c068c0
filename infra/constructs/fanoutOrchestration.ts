import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { type IFunction, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  DistributedMap,
  JitterType,
  JsonPath,
  Pass,
  type RetryProps,
  type StateMachine,
  StateMachineType,
  TaskInput,
  type TaskStateBase,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { asIBucket } from '../cdkTypes.ts';
import { engineFunctionProps } from './archiveFunction.ts';
import { loggedStateMachine } from './loggedStateMachine.ts';
import { acknowledgeDistributedMap } from './nagAcknowledgements.ts';
import { ScopedJsonItemReader, ScopedResultWriter } from './scopedMapIo.ts';

export const FANOUT_ENTRY = fileURLToPath(new URL('../../functions/fanout/handler.ts', import.meta.url));

/** Where the Distributed Map writes its results (its manifest and the items' outputs): never public. */
export const FANOUT_RESULTS_PREFIX = archiveKeys.stagingAreas.fanoutResults.replace(/\/$/, '');

/** The only objects the map reads its items from: each orchestration's plan (`fanoutKeys.items`). */
export const FANOUT_ITEMS_KEYS = `${archiveKeys.stagingAreas.fanout}*/items.json`;

/** Errors a worker may meet that waiting cures: the map retries the item with backoff (never fails on them). */
export const TRANSIENT_ERRORS = [
  'Archiver.UPSTREAM_UNAVAILABLE',
  'Archiver.STORE_FAILED',
  'Archiver.CONFLICT',
  'Archiver.SCHEMA_MISMATCH',
];
/** How a step of the fan-out or the verify job retries what waiting cures: 3 more tries, 10 s apart, doubling. */
export const TRANSIENT_RETRY: RetryProps = {
  errors: TRANSIENT_ERRORS,
  interval: Duration.seconds(10),
  backoffRate: 2,
  maxAttempts: 3,
};

/**
 * A step of a job's state machine that invokes its function `fn` with `payload` (the response alone, at
 * `resultPath`), retried on Lambda's service errors and on TRANSIENT_RETRY's.
 */
export function lambdaStep(
  scope: Construct,
  name: string,
  fn: IFunction,
  payload: Record<string, unknown>,
  resultPath: string,
): TaskStateBase {
  return new LambdaInvoke(scope, name, {
    lambdaFunction: fn,
    payload: TaskInput.fromObject(payload),
    payloadResponseOnly: true,
    resultPath,
    retryOnServiceExceptions: true,
  }).addRetry(TRANSIENT_RETRY);
}

/** The API's rate limit, past the client's own retry budget (and Lambda's own throttle): the map slows. */
export const RATE_LIMIT_ERRORS = ['Archiver.RATE_LIMITED', 'Lambda.TooManyRequestsException'];

export interface FanoutOrchestrationProps {
  bucket: Bucket;
  /** The archiver's role: the workers write exactly what a run writes, no more. */
  role: IRole;
  environment: Record<string, string>;
  /** Items walked at once (the API's rate limit is the real ceiling, so the default is small). */
  maxConcurrency: number;
  /** Pages of one item: a day of more pages is split into ranges of this many. */
  rangePages: number;
  tracing: boolean;
  /** The schedule that starts the orchestration, and the queue its failed starts land in. */
  schedule: Rule;
  failures: IQueue;
  alarmTopic: ITopic;
}

/**
 * The fan-out: a Standard state machine that plans (due days, page ranges of a giant day), walks
 * the items in a Distributed Map of Lambda workers (items read from S3, results written to S3, item
 * failures tolerated: each is recorded by the finish step and counted), then finishes in one writer (the
 * ranged days, the digest, META, the summary). The schedule starts it; see docs/fanout.md for why.
 */
export class FanoutOrchestration extends Construct {
  readonly fn: NodejsFunction;
  readonly stateMachine: StateMachine;
  readonly map: DistributedMap;
  readonly failedAlarm: Alarm;

  constructor(scope: Construct, id: string, props: FanoutOrchestrationProps) {
    super(scope, id);
    const timeout = Duration.hours(5);
    this.fn = new NodejsFunction(this, 'Function', {
      ...engineFunctionProps(FANOUT_ENTRY, props.environment),
      // The map's workers, its plan and its finish step: never more at once, whatever else runs.
      reservedConcurrentExecutions: props.maxConcurrency + 1,
      retryAttempts: 0,
      role: props.role,
      logGroup: new LogGroup(this, 'Logs', {
        retention: RetentionDays.ONE_YEAR,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      description: 'Tunnel archiver fan-out: plan, walk a day or a page range, finish',
    });

    const step = (name: string, payload: Record<string, unknown>, resultPath: string | null) =>
      lambdaStep(this, name, this.fn, payload, resultPath ?? JsonPath.DISCARD);

    const plan = step(
      'Plan',
      {
        step: 'plan',
        orchestrationId: JsonPath.stringAt('$$.Execution.Name'),
        rangePages: props.rangePages,
        leaseTtlSeconds: timeout.toSeconds(),
      },
      '$.plan',
    );
    const walk = new LambdaInvoke(this, 'WalkItem', {
      lambdaFunction: this.fn,
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    })
      // A 429 storm slows the map: every item it hits waits, longer each time, and is tried again.
      .addRetry({
        errors: RATE_LIMIT_ERRORS,
        interval: Duration.seconds(30),
        backoffRate: 2,
        maxAttempts: 8,
        maxDelay: Duration.minutes(10),
        jitterStrategy: JitterType.FULL,
      })
      .addRetry(TRANSIENT_RETRY)
      // An item that still fails is isolated: the finish step records it in its day and counts it.
      .addCatch(new Pass(this, 'ItemFailed'), { resultPath: '$.error' });

    const bucket = asIBucket(props.bucket);
    this.map = new DistributedMap(this, 'Walk', {
      maxConcurrency: props.maxConcurrency,
      // Its own items and results only: CDK's reader and writer would grant the whole bucket.
      itemReader: new ScopedJsonItemReader({
        bucket,
        key: JsonPath.stringAt('$.plan.itemsKey'),
        itemsKeys: FANOUT_ITEMS_KEYS,
      }),
      itemSelector: {
        step: 'walk',
        orchestrationId: JsonPath.stringAt('$.plan.orchestrationId'),
        lease: JsonPath.objectAt('$.plan.lease'),
        windowDays: JsonPath.numberAt('$.plan.windowDays'),
        item: JsonPath.objectAt('$$.Map.Item.Value'),
      },
      toleratedFailurePercentage: 100,
      resultWriter: new ScopedResultWriter({ bucket, prefix: FANOUT_RESULTS_PREFIX }),
      mapExecutionType: StateMachineType.STANDARD,
      resultPath: '$.map',
    });
    this.map.itemProcessor(walk);
    const finish = step('Finish', { step: 'finish', plan: JsonPath.objectAt('$.plan') }, '$.summary');

    this.stateMachine = loggedStateMachine(this, plan.next(this.map).next(finish), timeout);
    props.schedule.addTarget(
      new SfnStateMachine(this.stateMachine, {
        retryAttempts: 4,
        maxEventAge: Duration.hours(2),
        deadLetterQueue: props.failures,
      }),
    );
    this.failedAlarm = new Alarm(this, 'ExecutionFailed', {
      metric: this.stateMachine.metricFailed({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'A fan-out orchestration failed (its plan or finish step); item failures are counted as DayFailures',
    });
    this.failedAlarm.addAlarmAction(new SnsAction(props.alarmTopic));
    acknowledgeDistributedMap(this.stateMachine, {
      fn: this.fn,
      bucket: props.bucket,
      itemsKeys: FANOUT_ITEMS_KEYS,
      resultsPrefix: FANOUT_RESULTS_PREFIX,
      what: 'fan-out',
    });
  }
}

import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct } from 'constructs';

/** The reason given wherever X-Ray's grant (`Resource: *`) is acknowledged. */
const X_RAY_REASON = 'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.';

/** cdk-nag's id for a wildcard finding on one resource, as cdk-nag names it. */
export function wildcardFinding(resource: string): string {
  return `AwsSolutions-IAM5[Resource::${resource}]`;
}

/** Acknowledges X-Ray's own grant on a traced function's or state machine's role. */
export function acknowledgeTracing(scope: IConstruct): void {
  Validations.of(scope).acknowledge({ id: wildcardFinding('*'), reason: X_RAY_REASON });
}

/**
 * Acknowledges the wildcards CDK grants a Distributed Map state machine whose items run `fn` and whose
 * item reader and result writer use `bucket` (`itemsKeys`, `resultsPrefix`: see scopedMapIo.ts): invoking
 * the function by version, its item files and result files, and the child executions and map runs of the
 * state machine itself. Each is named as cdk-nag
 * resolves it, so a grant that widens shows up as a new, unacknowledged finding.
 */
export function acknowledgeDistributedMap(
  machine: StateMachine,
  props: { fn: IFunction; bucket: Bucket; itemsKeys: string; resultsPrefix: string; what: string },
): void {
  const stack = Stack.of(machine);
  const id = (c: IConstruct) => stack.getLogicalId(c.node.defaultChild as CfnElement);
  const name = `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${id(machine)}"}]}]}`;
  const execution = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${name}`;
  const acks: [string, string][] = [
    ['*', X_RAY_REASON],
    [
      `<${id(props.fn)}.Arn>:*`,
      `Invoking the ${props.what} function by any of its versions (the grant CDK makes for a Lambda task); one function only.`,
    ],
    [
      `<${id(props.bucket)}.Arn>/${props.itemsKeys}`,
      `The Distributed Map reads its items from the plan each execution writes (${props.itemsKeys}), nothing else of the archive bucket.`,
    ],
    [
      `<${id(props.bucket)}.Arn>/${props.resultsPrefix}/*`,
      `The Distributed Map writes its manifest and result files under ${props.resultsPrefix}/ (a folder per map run), nothing else.`,
    ],
    [`${execution}:*`, 'A Distributed Map runs its items as child executions of this very state machine.'],
    [`${execution}/*:*`, 'A Distributed Map describes and stops the map runs of this very state machine.'],
  ];
  for (const [resource, reason] of acks) {
    Validations.of(machine).acknowledge({ id: wildcardFinding(resource), reason });
  }
}

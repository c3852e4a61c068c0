import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  DefinitionBody,
  type IChainable,
  LogLevel,
  StateMachine,
  StateMachineType,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';

/**
 * A standard, traced state machine (`<scope>/StateMachine`) logging every event, without execution data, to its
 * own log group (`<scope>/StateMachineLogs`), kept a year and when the stack is deleted: the fan-out and the
 * verify job are both built so.
 */
export function loggedStateMachine(scope: Construct, chain: IChainable, timeout: Duration): StateMachine {
  return new StateMachine(scope, 'StateMachine', {
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromChainable(chain),
    timeout,
    tracingEnabled: true,
    logs: {
      destination: new LogGroup(scope, 'StateMachineLogs', {
        retention: RetentionDays.ONE_YEAR,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
      level: LogLevel.ALL,
      includeExecutionData: false,
    },
  });
}

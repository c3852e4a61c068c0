import { ACCOUNT, REGION } from '../../devkit/infra/templateArns.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { fanoutKeys } from '../../lib/archive/fanout/fanoutTypes.ts';
import { verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';
import type { Access } from './roleAccess.ts';

type State = Record<string, unknown> & { Type: string; Resource?: string };
interface Asl {
  States: Record<string, State>;
}

/** What a state machine's role needs for its logs when logging is on (Step Functions developer guide, "Logging"). */
export const LOGGING_ACTIONS = [
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
] as const;

/** What it needs for its traces when X-Ray tracing is on. */
export const TRACING_ACTIONS = [
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
] as const;

const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;

/** Every state of a definition, the states of Map item processors included. */
function allStates(asl: Asl): [string, State][] {
  return Object.entries(asl.States).flatMap(([name, s]) => {
    const inner = (s.ItemProcessor ?? s.Iterator) as Asl | undefined;
    return [[name, s] as [string, State], ...(inner ? allStates(inner) : [])];
  });
}

/**
 * What the state machine's role must be allowed for its definition (the Step Functions developer guide:
 * "IAM policies for Lambda tasks", "IAM policies for Distributed Map states", "Logging" and "X-Ray"): each
 * Lambda task's function; a Distributed Map's child executions of this very machine (start, describe,
 * stop, redrive of its map runs), its item reader's object and its result writer's objects; its logs
 * and traces when they are on.
 */
export function stateMachineNeeds(
  asl: Asl,
  machine: { arn: string; name: string; logging: boolean; tracing: boolean },
): Access[] {
  const out: Access[] = [];
  const need = (call: string, action: string, resource: string): void => {
    out.push({ action, resource, call });
  };
  for (const [name, s] of allStates(asl)) {
    if (s.Type === 'Task' && s.Resource?.startsWith('arn:aws:lambda:'))
      need(`Task ${name}`, 'lambda:InvokeFunction', s.Resource);
    if (s.Type === 'Task' && s.Resource === 'arn:aws:states:::lambda:invoke')
      need(
        `Task ${name}`,
        'lambda:InvokeFunction',
        String((s.Parameters as Record<string, unknown>).FunctionName),
      );
    const processor = (s.ItemProcessor as { ProcessorConfig?: { Mode?: string } } | undefined)
      ?.ProcessorConfig;
    if (s.Type !== 'Map' || processor?.Mode !== 'DISTRIBUTED') continue;
    const child = `execution:${machine.name}`;
    need(`Map ${name} (child executions)`, 'states:StartExecution', machine.arn);
    need(`Map ${name} (child executions)`, 'states:DescribeExecution', arn('states', `${child}:item-1`));
    need(`Map ${name} (child executions)`, 'states:StopExecution', arn('states', `${child}:item-1`));
    need(`Map ${name} (redrive)`, 'states:RedriveExecution', arn('states', `${child}/${name}:item-1`));
    const reader = s.ItemReader as { Resource: string; Parameters: Record<string, string> } | undefined;
    const writer = s.ResultWriter as { Resource: string; Parameters: Record<string, string> } | undefined;
    if (reader?.Resource.endsWith(':s3:getObject')) {
      const key = reader.Parameters.Key ?? itemsKeyOf(name, writer?.Parameters.Prefix);
      need(`Map ${name} ItemReader`, 's3:GetObject', `arn:aws:s3:::${reader.Parameters.Bucket}/${key}`);
    }
    if (writer?.Resource.endsWith(':s3:putObject')) {
      const object = `arn:aws:s3:::${writer.Parameters.Bucket}/${writer.Parameters.Prefix}/run-1/SUCCEEDED_0.json`;
      for (const a of [
        's3:PutObject',
        's3:GetObject',
        's3:ListMultipartUploadParts',
        's3:AbortMultipartUpload',
      ])
        need(`Map ${name} ResultWriter`, a, object);
    }
  }
  if (machine.logging) for (const a of LOGGING_ACTIONS) need('logging (LogLevel ALL)', a, '*');
  if (machine.tracing) for (const a of TRACING_ACTIONS) need('tracing', a, '*');
  return out;
}

/**
 * The items file a map whose key is a JSON path reads: its plan step writes it where its own key layout
 * says, told apart by where the map writes its results (the fan-out's under `_staging/`, a verify job's
 * under `verify-jobs/`). A map of neither fails here rather than be checked against another's keys.
 */
function itemsKeyOf(map: string, resultsPrefix: string | undefined): string {
  if (resultsPrefix?.startsWith(verifyJobKeys.prefix)) return verifyJobKeys.items('job-1');
  if (resultsPrefix?.startsWith(archiveKeys.stagingPrefix)) return fanoutKeys.items('orchestration-1');
  throw new Error(`Map ${map}: no items key known for a map whose results go to ${resultsPrefix}`);
}

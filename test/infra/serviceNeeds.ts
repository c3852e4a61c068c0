import { ACCOUNT, REGION } from '../../devkit/infra/templateArns.ts';
import type { Access, TemplatePolicies } from './roleAccess.ts';
import { stateMachineNeeds } from './stateMachineNeeds.ts';

/** What a service does with a rule target's role, by the target's service (the EventBridge user guide). */
const TARGET_ACTION: Record<string, string> = {
  states: 'states:StartExecution',
  events: 'events:PutEvents',
  lambda: 'lambda:InvokeFunction',
  sqs: 'sqs:SendMessage',
  sns: 'sns:Publish',
  kinesis: 'kinesis:PutRecord',
};

/**
 * What the stack's services do as its roles, by role: each state machine's role what its definition
 * needs (stateMachineNeeds), and each EventBridge rule target's role the action its target's service
 * takes (a schedule starting the fan-out: states:StartExecution on the state machine).
 */
export function serviceNeeds(policies: TemplatePolicies): Map<string, Access[]> {
  const out = new Map<string, Access[]>();
  const add = (roleId: string, needs: Access[]) => out.set(roleId, [...(out.get(roleId) ?? []), ...needs]);
  for (const [id, machine] of policies.resources('AWS::StepFunctions::StateMachine'))
    add(
      policies.roleOf(id),
      stateMachineNeeds(JSON.parse(String(machine.DefinitionString)), {
        arn: `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${id}`,
        name: id,
        logging: machine.LoggingConfiguration !== undefined,
        tracing: (machine.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled === true,
      }),
    );
  for (const [id, rule] of policies.resources('AWS::Events::Rule'))
    for (const target of (rule.Targets ?? []) as { Arn: string; RoleArn?: string; Id: string }[]) {
      if (target.RoleArn === undefined) continue;
      const service = target.Arn.split(':')[2] ?? '';
      const action = TARGET_ACTION[service];
      if (!action) throw new Error(`rule ${id}: no action known for a target of ${service}`);
      const roleId = target.RoleArn.split('/').at(-1) ?? '';
      add(roleId, [{ action, resource: target.Arn, call: `rule ${id} target ${target.Id}` }]);
    }
  return out;
}

/**
 * What both local state machine runs share (the fan-out's, localFanout.ts, and the verify job's,
 * verifyJobChild.ts): the synthesized definition with its references resolved, and a Distributed Map made
 * runnable under aws-local-stepfunctions.
 *
 * The local runner runs a Distributed Map as a plain Map: it ignores ItemReader, ResultWriter and
 * ToleratedFailurePercentage. So the map's items are read as ItemReader reads them (the JSON array at the
 * plan's `itemsKey`), by a task state (`ReadItems`) put between the plan and the map; ResultWriter is covered
 * by template assertions.
 */
import type { Template } from 'aws-cdk-lib/assertions';

export interface StateMachineDefinition {
  States: Record<string, Record<string, unknown>>;
}

/** The task state put before the map: its local handler returns the items at `Key`. */
export const READ_ITEMS = 'ReadItems';

/** A state machine's definition as synthesized, its references resolved to stand-in names. */
export function synthesizedDefinition(template: Template, machineId: string): StateMachineDefinition {
  const body = template.toJSON().Resources[machineId].Properties.DefinitionString as {
    'Fn::Join': [string, unknown[]];
  };
  const text = body['Fn::Join'][1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const p = part as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
      if (p['Fn::GetAtt']) return `arn:aws:lambda:us-east-1:000000000000:function:${p['Fn::GetAtt'][0]}`;
      if (p.Ref === 'AWS::Partition') return 'aws';
      return String(p.Ref);
    })
    .join('');
  return JSON.parse(text);
}

/**
 * A copy of `definition` whose Distributed Map `map` takes its items from `READ_ITEMS`, a task put after
 * `plan`, given the plan's `itemsKey`, instead of from its ItemReader.
 */
export function itemsReadBeforeMap(
  definition: StateMachineDefinition,
  names: { plan: string; map: string },
): StateMachineDefinition {
  const local = structuredClone(definition);
  const map = local.States[names.map];
  const plan = local.States[names.plan];
  if (!map?.ItemReader || !plan) throw new Error(`no Distributed Map ${names.map} after ${names.plan}`);
  delete map.ItemReader;
  delete map.ResultWriter;
  map.ItemsPath = '$.items';
  plan.Next = READ_ITEMS;
  local.States[READ_ITEMS] = {
    Type: 'Task',
    Resource: 'arn:aws:lambda:us-east-1:000000000000:function:item-reader',
    Parameters: { 'Key.$': '$.plan.itemsKey' },
    ResultPath: '$.items',
    Next: names.map,
  };
  return local;
}

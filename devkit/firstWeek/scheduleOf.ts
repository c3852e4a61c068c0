import { rateMs } from '../deployedSchedule.ts';
import type { CfnTemplate } from '../infra/templateArns.ts';

/** What a rule's target is: a function of the template or a state machine, by logical id. */
export interface RuleTarget {
  kind: 'function' | 'stateMachine';
  id: string;
  /** The target's `Input` (parsed); absent, EventBridge sends its Scheduled Event. */
  input?: unknown;
}

/** One EventBridge rule of the template: its logical id, its period, its targets. */
export interface ScheduledRule {
  ruleId: string;
  everyMs: number;
  targets: RuleTarget[];
}

/**
 * Every scheduled `AWS::Events::Rule` of the synthesized template, read as EventBridge reads it: the rate
 * of its `ScheduleExpression` and, for each target, the function (`Fn::GetAtt [fn, Arn]`) or state
 * machine (`Ref`) it starts with its `Input`. A target of any other shape, or a rule with none, throws with
 * the rule's name: a schedule that starts nothing is a broken stack, not a quiet week.
 */
export function scheduleOf(template: CfnTemplate): ScheduledRule[] {
  const rules: ScheduledRule[] = [];
  for (const [ruleId, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Events::Rule') continue;
    const props = r.Properties ?? {};
    if (props.ScheduleExpression === undefined || props.State === 'DISABLED') continue;
    const targets = ((props.Targets ?? []) as Record<string, unknown>[]).map((t): RuleTarget => {
      const arn = t.Arn as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
      const input = typeof t.Input === 'string' ? { input: JSON.parse(t.Input) as unknown } : {};
      const fn = arn['Fn::GetAtt']?.[0];
      if (fn !== undefined && template.Resources[fn]?.Type === 'AWS::Lambda::Function')
        return { kind: 'function', id: fn, ...input };
      if (arn.Ref !== undefined && template.Resources[arn.Ref]?.Type === 'AWS::StepFunctions::StateMachine')
        return { kind: 'stateMachine', id: arn.Ref, ...input };
      throw new Error(`${ruleId}: a target the first week cannot start (${JSON.stringify(t.Arn)})`);
    });
    if (targets.length === 0) throw new Error(`${ruleId}: a schedule with no target starts nothing`);
    rules.push({ ruleId, everyMs: rateMs(props.ScheduleExpression), targets });
  }
  return rules;
}

import type { RuleTarget, ScheduledRule } from './scheduleOf.ts';

/** One target of one rule started at one instant. */
export interface Firing {
  at: Date;
  ruleId: string;
  target: RuleTarget;
  /** What the target receives: its `Input`, or the Scheduled Event EventBridge sends. */
  event: unknown;
}

/** The event EventBridge sends a target that has no `Input`. */
export function scheduledEvent(ruleId: string, at: Date, n: number): Record<string, unknown> {
  return {
    version: '0',
    id: `${ruleId}-${n}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:123456789012:rule/${ruleId}`],
    detail: {},
  };
}

/**
 * The firings of `rules` over `days` from `start`, in the order they happen: a rate rule fires one period
 * after it is created and every period after that (`start + k·period`, k ≥ 1, up to `start + days`).
 * Firings at one instant keep the template's order of rules and targets.
 */
export function simulateWeek(rules: readonly ScheduledRule[], start: Date, days: number): Firing[] {
  const end = start.getTime() + days * 86_400_000;
  const out: Firing[] = [];
  for (const rule of rules)
    for (let k = 1, t = start.getTime() + rule.everyMs; t <= end; k++, t += rule.everyMs)
      for (const target of rule.targets) {
        const at = new Date(t);
        out.push({
          at,
          ruleId: rule.ruleId,
          target,
          event: 'input' in target ? target.input : scheduledEvent(rule.ruleId, at, k),
        });
      }
  // A stable sort: ties keep the order above.
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

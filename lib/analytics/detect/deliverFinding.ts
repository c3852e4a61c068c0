import type { DeliveryStatus } from './evaluateRules.ts';
import type { Finding } from './finding.ts';
import { type FindingEvents, findingEvent } from './findingEvents.ts';
import { findingMessage } from './findingMessage.ts';
import type { DetectionRule } from './ruleSchema.ts';

/**
 * The delivery of one finding this evaluation holds: every new and updated one on the events port
 * (EventBridge), and the new ones also as a message (SNS), once per incident.
 */
export function deliverFinding(deps: {
  publish: (subject: string, message: string) => Promise<void>;
  events: FindingEvents;
}) {
  return async (f: Finding, rule: DetectionRule, status: DeliveryStatus): Promise<void> => {
    await deps.events.put([findingEvent(f, rule, status)]);
    if (status === 'new') {
      const { subject, message } = findingMessage(f, rule);
      await deps.publish(subject, message);
    }
  };
}

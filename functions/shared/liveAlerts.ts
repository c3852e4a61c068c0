import { deliverFinding } from '../../lib/detect/deliverFinding.ts';
import { recordIncidents } from '../../lib/detect/evaluateRules.ts';
import type { FindingEvents } from '../../lib/detect/findingEvents.ts';
import type { FindingLedger } from '../../lib/detect/findingLedger.ts';
import { evaluateLiveRules } from '../../lib/detect/liveRules.ts';
import type { DetectionRule } from '../../lib/detect/ruleSchema.ts';
import type { DetectionSettings } from '../../lib/detect/ruleSettings.ts';
import type { Logger } from '../../lib/log/logger.ts';
import type { ActiveObservations } from '../../lib/state/stateStore.ts';
import { countPerRule, type FindingCounter } from './countPerRule.ts';
import { DETECT_METRIC } from './detectTelemetry.ts';

/**
 * The snapshot function's `afterSnapshot`: the live rules on the new observations, each incident
 * recorded in the same ledger as the scheduled rules (same key: a tunnel alerted live and later seen in
 * history is one incident), the new and updated ones delivered as the scheduled rules deliver them.
 */
export function liveAlerts(deps: {
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  ledger: FindingLedger;
  publish: (subject: string, message: string) => Promise<void>;
  events: FindingEvents;
  countFindings: FindingCounter;
  logger: Logger;
}) {
  return async (observations: ActiveObservations, observedAt: Date): Promise<void> => {
    const findings = evaluateLiveRules(observations, observedAt, deps.rules, deps.overrides);
    const { delivered } = await recordIncidents(
      {
        ledger: deps.ledger,
        logger: deps.logger,
        deliver: deliverFinding({ publish: deps.publish, events: deps.events }),
      },
      findings,
      (id) => deps.rules.find((r) => r.id === id),
      observedAt,
    );
    countPerRule(deps.countFindings, DETECT_METRIC.NewFindings, delivered);
  };
}

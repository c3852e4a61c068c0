import { claimAndDeliver } from '../../lib/detect/evaluateRules.ts';
import type { FindingLedger } from '../../lib/detect/findingLedger.ts';
import { findingMessage } from '../../lib/detect/findingMessage.ts';
import { evaluateLiveRules } from '../../lib/detect/liveRules.ts';
import type { DetectionRule } from '../../lib/detect/ruleSchema.ts';
import type { DetectionSettings } from '../../lib/detect/ruleSettings.ts';
import type { ActiveObservations } from '../../lib/state/stateStore.ts';
import { countPerRule, type FindingCounter } from './countPerRule.ts';
import { DETECT_METRIC } from './detectTelemetry.ts';

/**
 * The snapshot function's `afterSnapshot`: the live rules on the new observations, each finding
 * claimed in the state table and the claimed ones published, as the scheduled rules do.
 */
export function liveAlerts(deps: {
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  ledger: FindingLedger;
  publish: (subject: string, message: string) => Promise<void>;
  countFindings: FindingCounter;
}) {
  return async (observations: ActiveObservations, observedAt: Date): Promise<void> => {
    const findings = evaluateLiveRules(observations, observedAt, deps.rules, deps.overrides);
    const delivered = await claimAndDeliver(
      {
        ledger: deps.ledger,
        deliver: async (f, rule) => {
          const { subject, message } = findingMessage(f, rule);
          await deps.publish(subject, message);
        },
      },
      findings,
      (id) => deps.rules.find((r) => r.id === id),
    );
    countPerRule(deps.countFindings, DETECT_METRIC.NewFindings, delivered);
  };
}

import { deliverFinding } from '../../lib/analytics/detect/deliverFinding.ts';
import { recordIncidents } from '../../lib/analytics/detect/evaluateRules.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import type { FindingEvents } from '../../lib/analytics/detect/findingEvents.ts';
import type { FindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { liveIncidentsToRecord } from '../../lib/analytics/detect/liveIncidentsToRecord.ts';
import { evaluateLiveRules } from '../../lib/analytics/detect/liveRules.ts';
import type { DetectionRule } from '../../lib/analytics/detect/ruleSchema.ts';
import type { DetectionSettings } from '../../lib/analytics/detect/ruleSettings.ts';
import type { ActiveObservations } from '../../lib/archive/active/activeState.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import { countPerRule, type FindingCounter } from './countPerRule.ts';
import { DETECT_METRIC } from './detectTelemetry.ts';

/**
 * The snapshot function's `afterSnapshot`: the live rules on the new observations, each incident
 * recorded in the same ledger as the scheduled rules (same key: a tunnel alerted live and later seen in
 * history is one incident), the new ones written to `findings/` and then delivered, as the scheduled
 * rules write and deliver them (`recordIncidents`); later revisions of a delivered incident are
 * `detect`'s (`liveIncidentsToRecord`).
 */
export function liveAlerts(deps: {
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  ledger: FindingLedger;
  /** Stores new and updated findings (`findings/` through the committer) before they are delivered. */
  commitFindings: (findings: readonly Finding[]) => Promise<unknown>;
  publish: (subject: string, message: string) => Promise<void>;
  events: FindingEvents;
  countFindings: FindingCounter;
  logger: Logger;
}) {
  return async (observations: ActiveObservations, observedAt: Date): Promise<void> => {
    const ruleOf = (id: string) => deps.rules.find((r) => r.id === id);
    const found = evaluateLiveRules(observations, observedAt, deps.rules, deps.overrides);
    const findings = await liveIncidentsToRecord(deps.ledger, found, ruleOf);
    const { delivered } = await recordIncidents(
      {
        ledger: deps.ledger,
        logger: deps.logger,
        commitFindings: deps.commitFindings,
        deliver: deliverFinding({ publish: deps.publish, events: deps.events }),
      },
      findings,
      ruleOf,
      observedAt,
    );
    countPerRule(deps.countFindings, DETECT_METRIC.NewFindings, delivered);
  };
}

import * as z from 'zod';
import { deliverFinding } from '../../lib/analytics/detect/deliverFinding.ts';
import { dueRules, type EvaluateResult, evaluateRules } from '../../lib/analytics/detect/evaluateRules.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import type { FindingEvents } from '../../lib/analytics/detect/findingEvents.ts';
import type { FindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import type { RuleEngine } from '../../lib/analytics/detect/ruleEngine.ts';
import type { DetectionRule } from '../../lib/analytics/detect/ruleSchema.ts';
import type { DetectionSettings } from '../../lib/analytics/detect/ruleSettings.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import type { MetricsSink } from '../shared/archiveHandlerDeps.ts';
import { countPerRule, type FindingCounter } from '../shared/countPerRule.ts';
import { DETECT_METRIC } from '../shared/detectTelemetry.ts';

export interface DetectHandlerDeps {
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  engine: RuleEngine;
  ledger: (owner: string) => FindingLedger;
  commitFindings: (findings: readonly Finding[]) => Promise<unknown>;
  publish: (subject: string, message: string) => Promise<void>;
  /** Every new and updated finding (EventBridge's default bus in AWS). */
  events: FindingEvents;
  countFindings: FindingCounter;
  metrics: MetricsSink;
  clock: Clock;
  logger: Logger;
  /** The schedule's period: a rule runs when its own schedule ticks within the period that ends now. */
  tickMs: number;
  runId: () => string;
}

/**
 * A scheduled event (its `time`: the tick it stands for), or `{ "rules": ["id", ...] }` to run those
 * rules now.
 */
const detectEvent = z
  .object({ rules: z.array(z.string()).optional(), time: z.iso.datetime({ offset: true }).optional() })
  .loose();

/**
 * The detect Lambda without AWS: evaluates the rules that are due (Athena through `engine`), stores
 * each incident in the state table's ledger (new, updated or known), stores the new and updated ones
 * (`findings/` through the committer), puts them on EventBridge and publishes the new ones to SNS with
 * the runbook and the SQL of their rows; what an earlier evaluation left in the outbox goes out first;
 * metrics per rule and severity.
 */
export function createDetectHandler(deps: DetectHandlerDeps) {
  const { logger, metrics } = deps;
  return async (event: unknown): Promise<EvaluateResult & { due: string[] }> => {
    try {
      const parsed = detectEvent.safeParse(event ?? {});
      if (!parsed.success)
        throw new ArchiverError('CONFIG_INVALID', 'the detect event must be an object', {
          cause: parsed.error,
        });
      const asked = parsed.data.rules;
      // The tick the scheduled event stands for: a retried invocation of it evaluates the same instant.
      const at = parsed.data.time === undefined ? deps.clock.now() : new Date(parsed.data.time);
      const due = asked
        ? deps.rules.filter((r) => asked.includes(r.id))
        : dueRules(deps.rules, at, deps.tickMs);
      const result = await evaluateRules(
        {
          engine: deps.engine,
          ledger: deps.ledger(deps.runId()),
          clock: deps.clock,
          logger,
          commitFindings: deps.commitFindings,
          deliver: deliverFinding({ publish: deps.publish, events: deps.events }),
        },
        { rules: due, overrides: deps.overrides, at },
      );
      countPerRule(deps.countFindings, DETECT_METRIC.Findings, result.findings);
      countPerRule(deps.countFindings, DETECT_METRIC.NewFindings, result.delivered);
      metrics.addMetric(DETECT_METRIC.EvaluationSucceeded, 'Count', 1);
      logger.info('rules evaluated', {
        due: due.map((r) => r.id),
        findings: result.findings.length,
        new: result.delivered.length,
        updated: result.updated.length,
        warming_up: result.warmingUp,
      });
      return { ...result, due: due.map((r) => r.id) };
    } catch (error) {
      throw failed(logger, metrics, error);
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

/** A failed evaluation: counted (EvaluationSucceeded 0) and logged with its code; returned to be thrown. */
function failed(logger: Logger, metrics: MetricsSink, error: unknown): unknown {
  metrics.addMetric(DETECT_METRIC.EvaluationSucceeded, 'Count', 0);
  const code = ArchiverError.is(error) ? error.code : 'INTERNAL';
  logger.error('detection failed', { code, error: error instanceof Error ? error.message : String(error) });
  return error;
}

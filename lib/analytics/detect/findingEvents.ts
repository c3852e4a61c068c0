import { toOcsfDetectionFinding } from '../ocsf/toOcsfDetectionFinding.ts';
import type { DeliveryStatus } from './evaluateRules.ts';
import type { Finding } from './finding.ts';
import type { DetectionRule } from './ruleSchema.ts';

/** The events' `source` and `detail-type`, as a team's EventBridge rule matches them. */
export const FINDING_EVENT_SOURCE = 'tunnel-archiver.detect';
export const FINDING_DETAIL_TYPE = 'Tunnel Archiver Finding';

/** One event as PutEvents takes it (the default bus). */
export interface FindingEvent {
  source: string;
  detailType: string;
  /** JSON: the status, the finding's explicit fields and its OCSF Detection Finding form. */
  detail: string;
  time: Date;
}

/** The port every new and updated finding is put on (EventBridge in AWS; in memory in tests). */
export interface FindingEvents {
  put(events: readonly FindingEvent[]): Promise<void>;
}

/** A finding's event: `status` new or updated, its fields (bounded record ids), and `ocsf`. */
export function findingEvent(f: Finding, rule: DetectionRule, status: DeliveryStatus): FindingEvent {
  return {
    source: FINDING_EVENT_SOURCE,
    detailType: FINDING_DETAIL_TYPE,
    time: f.updated_at,
    detail: JSON.stringify({
      status,
      finding_id: f.finding_id,
      revision: f.revision,
      rule_id: f.rule_id,
      rule_uid: f.rule_uid,
      severity: f.severity,
      entity: f.entity,
      first_seen: f.first_seen.toISOString(),
      last_seen: f.last_seen.toISOString(),
      hits: f.hits,
      record_count: f.record_count,
      ocsf: toOcsfDetectionFinding(f, rule),
    }),
  };
}

/** Events in memory (tests, the harness). */
export function memoryFindingEvents(): FindingEvents & { events: FindingEvent[] } {
  const events: FindingEvent[] = [];
  return {
    events,
    async put(batch) {
      events.push(...batch);
    },
  };
}

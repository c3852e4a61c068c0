import type { Finding } from './finding.ts';
import type { FindingLedger } from './findingLedger.ts';
import { sameIncident } from './incidentLedger.ts';
import { type DetectionRule, durationMs } from './ruleSchema.ts';

/**
 * The live rules' candidates worth recording: all but those of an incident the ledger holds as
 * delivered. The live rules exist to alert within one snapshot period; an open tunnel's later
 * revisions are `detect`'s (hourly), so a snapshot does not write and deliver a revision of each open
 * incident every few minutes. An incident still owed a delivery (a crash between claim and publish)
 * is recorded, so the snapshot finishes it.
 */
export async function liveIncidentsToRecord(
  ledger: FindingLedger,
  candidates: readonly Finding[],
  ruleOf: (id: string) => DetectionRule | undefined,
): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const c of candidates) {
    const rule = ruleOf(c.rule_id);
    const held = await ledger.read(c.dedupe_key);
    if (rule !== undefined && held !== undefined) {
      const { finding: f, delivered_revision } = held.entry;
      const delivered = delivered_revision >= f.revision;
      const gap = durationMs(rule.quiet_gap);
      const ours = sameIncident(
        Date.parse(f.first_seen),
        Date.parse(f.last_seen),
        +c.first_seen,
        +c.last_seen,
        gap,
      );
      if (delivered && ours) continue;
    }
    out.push(c);
  }
  return out;
}

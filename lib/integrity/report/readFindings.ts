import { dataKeyInfo, type ObjectStore, objectSource, readRowGroups } from '../../archive/index.ts';
import type { FindingsSummary } from './reportModel.ts';

/** Where the detections dataset lives: `findings/dt=YYYY-MM-DD/*.parquet`. */
export const FINDINGS_PREFIX = 'findings/';
const LATEST = 10;

const text = (v: unknown): string => (v instanceof Date ? v.toISOString() : v == null ? '' : String(v));

/**
 * The findings dataset summed up by rule and severity, with the latest findings; `undefined` when the
 * archive has no findings dataset (the report then leaves its section out). Each incident counts once,
 * as its latest revision (`detect` writes a row per revision: the new one, then each update). Reads the
 * columns `finding_id`, `revision`, `rule_id`, `severity`, `entity` and `last_seen` of each file (the
 * findings dataset's, `lib/analytics/detect/findingsDataset.ts`), tolerating any other columns; a row without a
 * `finding_id` counts by itself.
 */
export async function readFindings(objects: ObjectStore): Promise<FindingsSummary | undefined> {
  const incidents = new Map<string, { revision: number; row: FindingsSummary['latest'][number] }>();
  let files = 0;
  let rowNo = 0;
  for await (const f of objects.list(FINDINGS_PREFIX)) {
    if (!f.key.endsWith('.parquet')) continue;
    files++;
    const dt = dataKeyInfo(f.key).dt ?? '';
    for await (const rows of readRowGroups(objectSource(objects, f.key, f.size))) {
      for (const row of rows) {
        const id = text(row.finding_id) || `row#${rowNo++}`;
        const revision = Number(row.revision ?? 0);
        const held = incidents.get(id);
        if (held !== undefined && held.revision > revision) continue;
        incidents.set(id, {
          revision,
          row: {
            rule: text(row.rule_id),
            severity: text(row.severity),
            dt,
            entity: text(row.entity),
            lastSeen: text(row.last_seen),
          },
        });
      }
    }
  }
  if (files === 0) return undefined;
  const all = [...incidents.values()].map((i) => i.row);
  const byRule = new Map<string, { rule: string; severity: string; count: number }>();
  for (const { rule, severity } of all) {
    const k = `${rule}\u0000${severity}`;
    const entry = byRule.get(k) ?? { rule, severity, count: 0 };
    entry.count++;
    byRule.set(k, entry);
  }
  all.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen) || b.dt.localeCompare(a.dt));
  return {
    total: all.length,
    byRule: [...byRule.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
    latest: all.slice(0, LATEST),
  };
}

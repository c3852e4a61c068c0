import { dataKeyInfo } from '../commit/archiveKeys.ts';
import { readRowGroups } from '../parquet/readHistoryParquet.ts';
import { objectSource } from '../store/byteSource.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { FindingsSummary } from './reportModel.ts';

/** Where the detections dataset lives: `findings/dt=YYYY-MM-DD/*.parquet`. */
export const FINDINGS_PREFIX = 'findings/';
const LATEST = 10;

const text = (v: unknown): string => (v instanceof Date ? v.toISOString() : v == null ? '' : String(v));

/**
 * The findings dataset summed up by rule and severity, with the latest findings; `undefined` when the
 * archive has no findings dataset (the report then leaves its section out). Reads the columns `rule_id`,
 * `severity`, `entity` and `last_seen` of each file (the findings dataset's, `lib/detect/findingsDataset.ts`),
 * tolerating any other columns.
 */
export async function readFindings(objects: ObjectStore): Promise<FindingsSummary | undefined> {
  const byRule = new Map<string, { rule: string; severity: string; count: number }>();
  const all: FindingsSummary['latest'] = [];
  let files = 0;
  for await (const f of objects.list(FINDINGS_PREFIX)) {
    if (!f.key.endsWith('.parquet')) continue;
    files++;
    const dt = dataKeyInfo(f.key).dt ?? '';
    for await (const rows of readRowGroups(objectSource(objects, f.key, f.size))) {
      for (const row of rows) {
        const rule = text(row.rule_id);
        const severity = text(row.severity);
        const k = `${rule}\u0000${severity}`;
        const entry = byRule.get(k) ?? { rule, severity, count: 0 };
        entry.count++;
        byRule.set(k, entry);
        all.push({ rule, severity, dt, entity: text(row.entity), lastSeen: text(row.last_seen) });
      }
    }
  }
  if (files === 0) return undefined;
  all.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen) || b.dt.localeCompare(a.dt));
  return {
    total: all.length,
    byRule: [...byRule.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
    latest: all.slice(0, LATEST),
  };
}

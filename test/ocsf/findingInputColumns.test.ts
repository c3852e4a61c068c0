import { describe, expect, it } from 'vitest';
import { FINDINGS_COLUMNS } from '../../lib/analytics/detect/findingsDataset.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { findingsOcsfSql } from '../../lib/analytics/ocsf/findingsOcsfSql.ts';
import { FINDING_INPUT } from '../../lib/analytics/ocsf/ocsfArchive.ts';
import { OCSF_1_8 } from '../../lib/analytics/ocsf/ocsfProfile.ts';
import { duckdbType } from '../../lib/analytics/sql/duckdbSpelling.ts';

describe("the OCSF export's findings table for an archive with no findings yet", () => {
  it('has every column of the findings dataset the mapping reads, typed as the dataset stores it', async () => {
    const sql = findingsOcsfSql({ findings: 'findings', history: 'history' }, OCSF_1_8, await loadRules());
    // The mapping reads the findings row as `f` (history's columns as `h`).
    const read = [...new Set([...sql.matchAll(/\bf\.([a-z_]+)/g)].map((m) => m[1] as string))].sort();
    expect(read).toContain('revision');
    const stored = new Map<string, string>(FINDINGS_COLUMNS.map((c) => [c.name, duckdbType(c.athenaType)]));
    // A UTC-adjusted Parquet timestamp reads as TIMESTAMPTZ in DuckDB.
    const typed = (name: string) => (stored.get(name) === 'TIMESTAMP' ? 'TIMESTAMPTZ' : stored.get(name));
    for (const name of read) {
      expect(stored.has(name), `the mapping reads f.${name}, which the findings dataset does not store`).toBe(
        true,
      );
      expect(Object.keys(FINDING_INPUT), `the empty table lacks ${name}`).toContain(name);
      expect(FINDING_INPUT[name as keyof typeof FINDING_INPUT], name).toBe(typed(name));
    }
  });
});

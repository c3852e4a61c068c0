import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import { findingsWriter } from '../../lib/analytics/detect/findingsDataset.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import type { DetectionRule } from '../../lib/analytics/detect/ruleSchema.ts';
import {
  detectionFindingMapping,
  type OcsfFindingInput,
  type OcsfRule,
} from '../../lib/analytics/ocsf/detectionFindingMapping.ts';
import { findingsOcsfSql } from '../../lib/analytics/ocsf/findingsOcsfSql.ts';
import {
  type MappedField,
  mappedSqlFields,
  mappedValue,
  type Source,
} from '../../lib/analytics/ocsf/mappedField.ts';
import type { OcsfType } from '../../lib/analytics/ocsf/ocsfField.ts';
import { selectList } from '../../lib/analytics/ocsf/ocsfField.ts';
import { OCSF_1_8 } from '../../lib/analytics/ocsf/ocsfProfile.ts';
import { stripNulls } from '../../lib/analytics/ocsf/stripNulls.ts';
import { toOcsfDetectionFinding } from '../../lib/analytics/ocsf/toOcsfDetectionFinding.ts';
import { sqlString } from '../../lib/analytics/query/sqlString.ts';
import { athenaLikeDuckdb } from '../../lib/analytics/sql/athenaLikeDuckdb.ts';
import { duckdbSpelling } from '../../lib/analytics/sql/duckdbSpelling.ts';
import { ocsfErrors } from './ocsfSchemas.ts';

const duckdb = await athenaLikeDuckdb();
const duck = duckdb.connection;
afterAll(() => duckdb.close());

const FINDING: OcsfFindingInput = {
  finding_id: 'f'.repeat(32),
  rule_id: 'domain_not_allowlisted',
  title: 'Tunnel on a domain that is not on the allowlist',
  severity: 'medium',
  source: 'scheduled',
  entity: 'exfil.attacker.example',
  token_hmac: 'hmac',
  client_network: null,
  session_id: 's-1',
  first_seen: new Date('2026-11-20T10:00:00Z'),
  last_seen: new Date('2026-11-20T10:05:00Z'),
  hits: 2,
  detected_at: new Date('2026-11-20T10:10:00.123Z'),
};
const RULE: OcsfRule = {
  id: 'domain_not_allowlisted',
  runbook: 'docs/runbooks/domain_not_allowlisted.md',
  attack: { tactic: 'TA0011', techniques: ['T1572'] },
};

/** `findings` holding `rows` (with the columns the mapping reads), and an empty `history`. */
async function findingsTable(rows: readonly OcsfFindingInput[]): Promise<void> {
  const text = (v: string | null) => (v === null ? 'NULL::VARCHAR' : sqlString(v));
  const ts = (d: Date) => `TIMESTAMPTZ '${d.toISOString()}'`;
  const selects = rows.map(
    (
      f,
    ) => `SELECT ${text(f.finding_id)} AS finding_id, ${text(f.rule_id)} AS rule_id, ${text(f.title)} AS title,
      ${text(f.severity)} AS severity, ${text(f.source)} AS source, ${text(f.entity)} AS entity,
      ${text(f.token_hmac)} AS token_hmac, ${text(f.client_network)} AS client_network, ${text(f.session_id)} AS session_id,
      ${ts(f.first_seen)} AS first_seen, ${ts(f.last_seen)} AS last_seen, ${f.hits} AS hits,
      []::VARCHAR[] AS record_ids, ${ts(f.detected_at)} AS detected_at, 0 AS revision`,
  );
  await duck.run(`CREATE OR REPLACE TABLE findings AS ${selects.join(' UNION ALL ')}`);
  await duck.run(
    'CREATE OR REPLACE TABLE history AS SELECT NULL::VARCHAR AS record_id, NULL::VARCHAR AS session_id WHERE false',
  );
}

/** Rows of a query as JSON objects with nulls left out (as OCSF has them). */
async function jsonRows(sql: string): Promise<unknown[]> {
  const reader = await duck.runAndReadAll(`SELECT CAST(to_json(e) AS VARCHAR) AS j FROM (${sql}) e`);
  return reader.getRowObjectsJson().map((r) => stripNulls(JSON.parse(String(r.j))));
}

/** The findings view in DuckDB (its first rows), for `rules`. */
const viewRows = async (rules: readonly OcsfRule[]) =>
  jsonRows(duckdbSpelling(findingsOcsfSql({ findings: 'findings', history: 'history' }, OCSF_1_8, rules)));

describe('mappedSqlFields and mappedValue', () => {
  type From = Source<OcsfFindingInput, OcsfRule>;
  it.each<[string, OcsfType, From, unknown]>([
    ['a constant', 'integer', { value: 7 }, 7],
    ['a column', 'integer', { column: 'hits' }, 2],
    ['a time as epoch ms', 'bigint', { epochMs: 'detected_at' }, 1_795_169_400_123],
    ['a number as text', 'varchar', { text: { epochMs: 'first_seen' } }, '1795168800000'],
    [
      'texts joined',
      'varchar',
      { concat: [{ column: 'rule_id' }, { value: '/' }, { column: 'entity' }] },
      'domain_not_allowlisted/exfil.attacker.example',
    ],
    [
      'an array',
      { array: 'varchar' },
      { arrayOf: [{ column: 'rule_id' }, { column: 'source' }] },
      ['domain_not_allowlisted', 'scheduled'],
    ],
    ['a table entry', 'integer', { lookup: 'severity', table: { low: 2, medium: 3 }, otherwise: 0 }, 3],
    ['a table miss', 'varchar', { lookup: 'source', table: { live: 'L' }, otherwise: 'other' }, 'other'],
    [
      'the first revision',
      'varchar',
      { firstRevision: { value: 'Create' }, later: { value: 'Update' } },
      'Create',
    ],
    ['a per-rule value', 'varchar', { perRule: (r) => r.runbook }, RULE.runbook],
    ['a null column (left out)', 'varchar', { column: 'client_network' }, undefined],
  ])('give the same value from SQL and from TypeScript: %s', async (_, type, from, expected) => {
    const fields: MappedField<OcsfFindingInput, OcsfRule>[] = [{ name: 'v', type, from }];
    await findingsTable([FINDING]);
    const [fromSql] = await jsonRows(
      duckdbSpelling(`SELECT ${selectList(mappedSqlFields(fields, [RULE]))} FROM findings f`),
    );
    const fromTs = stripNulls(mappedValue(fields, FINDING, RULE));
    expect(fromTs).toEqual(expected === undefined ? undefined : { v: expected });
    expect(fromSql).toEqual(fromTs);
  });
});

describe('detectionFindingMapping', () => {
  it('maps a finding attribute by attribute (the live form)', () => {
    expect(toOcsfDetectionFinding(FINDING, RULE)).toEqual({
      activity_id: 1,
      activity_name: 'Create',
      category_uid: 2,
      category_name: 'Findings',
      class_uid: 2004,
      class_name: 'Detection Finding',
      type_uid: 200401,
      type_name: 'Detection Finding: Create',
      severity_id: 3,
      severity: 'Medium',
      status_id: 1,
      status: 'New',
      time: 1_795_169_400_123,
      count: 2,
      finding_info: {
        uid: FINDING.finding_id,
        title: FINDING.title,
        desc: RULE.runbook,
        types: ['domain_not_allowlisted'],
        first_seen_time: 1_795_168_800_000,
        last_seen_time: 1_795_169_100_000,
        analytic: { uid: 'domain_not_allowlisted', name: FINDING.title, type_id: 1, type: 'Rule' },
        attacks: [
          {
            tactic: { uid: 'TA0011', name: 'Command and Control' },
            technique: { uid: 'T1572', name: 'Protocol Tunneling' },
          },
        ],
      },
      metadata: {
        uid: `${FINDING.finding_id}:1795169400123`,
        version: '1.8.0',
        product: { name: 'tunnel-archiver', vendor_name: 'tunnel-archiver' },
        logged_time: 1_795_169_400_123,
        correlation_uid: FINDING.finding_id,
      },
      unmapped: { entity: FINDING.entity, token_hmac: 'hmac', session_id: 's-1', source: 'scheduled' },
    });
    expect(ocsfErrors('1.8.0-detection_finding', toOcsfDetectionFinding(FINDING, RULE))).toBe('');
  });

  const critical: OcsfFindingInput = {
    ...FINDING,
    finding_id: 'c'.repeat(32),
    rule_id: 'no_runbook',
    severity: 'critical',
    token_hmac: null,
    client_network: '198.51.100.0/24',
    session_id: null,
    hits: 40,
  };
  const noRunbook: OcsfRule = {
    id: 'no_runbook',
    attack: { tactic: 'TA0011', techniques: ['T1572', 'T1583.001'] },
  };
  it.each<[string, OcsfFindingInput, OcsfRule]>([
    ['a medium finding of a rule with a runbook', FINDING, RULE],
    ['a critical finding without a session, of a rule without a runbook', critical, noRunbook],
    ['a finding of a severity OCSF does not name', { ...FINDING, severity: 'severe' as never }, RULE],
  ])("is the findings view's Create event of the same row: %s", async (_, finding, rule) => {
    await findingsTable([finding]);
    const [fromView] = await viewRows([RULE, noRunbook]);
    expect(toOcsfDetectionFinding(finding, rule)).toEqual(fromView);
  });

  it('gives the view what only SQL can join (related_events), and nothing else the live form lacks', () => {
    const sqlOnly = (fields: readonly MappedField<OcsfFindingInput, OcsfRule>[]): string[] =>
      fields.flatMap((f) =>
        'fields' in f ? sqlOnly(f.fields).map((n) => `${f.name}.${n}`) : 'sqlOnly' in f.from ? [f.name] : [],
      );
    expect(sqlOnly(detectionFindingMapping(OCSF_1_8))).toEqual(['finding_info.related_events']);
  });
});

describe('toOcsfDetectionFinding (the SNS form)', () => {
  it('validates against OCSF 1.8.0 Detection Finding', async () => {
    const rule = (await loadRules()).find((r) => r.id === FINDING.rule_id);
    expect(ocsfErrors('1.8.0-detection_finding', toOcsfDetectionFinding(FINDING, rule as never))).toBe('');
  });

  it("is, for each revision the findings dataset stores, the view's event of that row: Create, then Update", async () => {
    // Rows as the product writes them: the incident ledger's revisions (each keeping the incident's
    // detected_at), through the findings dataset's own Parquet writer.
    const rules = await loadRules();
    const rule = rules.find((r) => r.id === FINDING.rule_id) as DetectionRule;
    const first: Finding = {
      ...FINDING,
      rule_uid: rule.uid,
      severity: rule.level,
      record_ids: [],
      record_count: 0,
      dedupe_key: `${FINDING.rule_id}|${FINDING.entity}`,
      updated_at: FINDING.detected_at,
      revision: 0,
      dt: '2026-11-20',
      source: 'scheduled',
    };
    const later: Finding = {
      ...first,
      hits: 5,
      last_seen: new Date('2026-11-20T11:00:00Z'),
      updated_at: new Date('2026-11-20T11:10:00Z'),
      revision: 1,
    };
    const dir = await mkdtemp(join(tmpdir(), 'ta-findings-'));
    try {
      // The later revision first in the file: the view must not take the file's order for the revisions'.
      const file = join(dir, 'findings.parquet');
      await findingsWriter.write(
        (async function* () {
          yield later;
          yield first;
        })(),
        file,
      );
      await duck.run(`CREATE OR REPLACE TABLE findings AS SELECT * FROM read_parquet(${sqlString(file)})`);
      const fromView = await viewRows(rules);
      expect(
        (fromView as Record<string, unknown>[]).map((r) => [
          r.activity_name,
          (r.finding_info as { uid: string }).uid,
          r.count,
        ]),
      ).toEqual(
        expect.arrayContaining([
          ['Create', first.finding_id, 2],
          ['Update', first.finding_id, 5],
        ]),
      );
      for (const f of [first, later]) {
        const live = toOcsfDetectionFinding(f, rule as never);
        expect(fromView, `revision ${f.revision}`).toContainEqual(live);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is the findings view's Create event of the same row (one mapping)", async () => {
    const rules = await loadRules();
    await findingsTable([FINDING]);
    const [fromView] = await viewRows(rules);
    const rule = rules.find((r) => r.id === FINDING.rule_id);
    expect(toOcsfDetectionFinding(FINDING, rule as never)).toEqual(fromView);
  });
});

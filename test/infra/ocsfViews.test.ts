import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { FINDINGS_TABLE } from '../../lib/analytics/detect/findingsDataset.ts';
import { loadRulesSync } from '../../lib/analytics/detect/loadRules.ts';
import { ocsfViews } from '../../lib/analytics/ocsf/ocsfViews.ts';
import { trinoFunctionIssues } from '../ocsf/trinoFunctionIssues.ts';
import { trinoSyntaxErrors } from '../support/trinoSyntaxErrors.ts';

const { template } = synthApp();
const views = ocsfViews(FINDINGS_TABLE, loadRulesSync());
const OCSF_VIEW_NAMES = Object.values(views).map((v) => v.name);

interface Deployed {
  name: string;
  sql: string;
  text: string;
  columns: { name: string; type: string }[];
}

/** Every view the stack deploys in Glue, its Presto/Trino SQL decoded from `ViewOriginalText`. */
function deployedViews(): Deployed[] {
  const tables = Object.values(template.findResources('AWS::Glue::Table')) as {
    Properties: { TableInput: { Name: string; TableType?: string; ViewOriginalText?: string } };
  }[];
  return tables
    .map((t) => t.Properties.TableInput)
    .filter((input) => input.TableType === 'VIRTUAL_VIEW')
    .map((input) => {
      const text = input.ViewOriginalText ?? '';
      const encoded = /^\/\* Presto View: (.+) \*\/$/.exec(text)?.[1] ?? '';
      const presto = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
      return { name: input.Name, sql: presto.originalSql, text, columns: presto.columns };
    });
}

const deployed = (name: string): Deployed => {
  const view = deployedViews().find((v) => v.name === name);
  if (view === undefined) throw new Error(`the stack deploys no view ${name}`);
  return view;
};

/** What Trino would not run in a view's SQL: its grammar's errors, then calls outside the known functions. */
const trinoIssues = (sql: string) => [...trinoSyntaxErrors(sql), ...trinoFunctionIssues(sql)];

describe('the OCSF views in the stack', () => {
  it('deploys every view lib/analytics/ocsf renders, and no other OCSF view', () => {
    const ocsf = deployedViews()
      .map((v) => v.name)
      .filter((n) => n.includes('ocsf'));
    expect(ocsf.sort()).toEqual([...OCSF_VIEW_NAMES].sort());
  });

  it.each(Object.values(views))('deploys $name with the SQL the export runs, and its columns', (view) => {
    const d = deployed(view.name);
    expect(d.sql).toBe(view.sql);
    expect(d.columns).toEqual(view.columns.map((c) => ({ name: c.name, type: c.prestoType })));
    // Glue's limit on a view's text.
    expect(d.text.length).toBeLessThan(409_600);
  });

  it.each(OCSF_VIEW_NAMES)(
    'deploys %s as SQL that Trino parses, calling only Trino functions',
    (name) => {
      const { sql } = deployed(name);
      expect(trinoIssues(sql)).toEqual([]);
      // Athena runs the view as the body of `CREATE VIEW`: one query, nothing after it.
      expect(trinoSyntaxErrors(`CREATE OR REPLACE VIEW ${name} AS ${sql}`)).toEqual([]);
    },
    120_000,
  );

  // The same SQL, broken the ways a DuckDB spelling would break it: each must fail.
  it.each([
    ['a :: cast', (sql: string) => sql.replace(/CAST\(([^()]+?) AS (BIGINT|VARCHAR)\)/i, '$1::$2')],
    ['a DuckDB array type', (sql: string) => sql.replace(/ AS bigint\)/i, ' AS bigint[])')],
    ['a list literal', (sql: string) => sql.replace(/ARRAY\[/i, '[')],
    ['a DuckDB-only function', (sql: string) => sql.replace(/to_unixtime\(/i, 'epoch_ms(')],
    ['a lost parenthesis', (sql: string) => sql.replace(/\)(?![\s\S]*\))/, '')],
    ['QUALIFY', (sql: string) => `${sql} QUALIFY row_number() OVER () = 1`],
  ])(
    'finds %s in the sessions view',
    (_name, breakIt) => {
      const sql = deployed(views.sessions.name).sql;
      const broken = breakIt(sql);
      expect(broken).not.toBe(sql);
      expect(trinoIssues(broken).length).toBeGreaterThan(0);
    },
    120_000,
  );

  it('has no column OCSF does not define (no dt)', () => {
    for (const view of Object.values(views)) expect(view.columns.map((c) => c.name)).not.toContain('dt');
  });
});

describe('trinoFunctionIssues', () => {
  it.each([
    ['SELECT epoch_ms(t) FROM t', /epoch_ms/],
    ['SELECT list_transform(a, x -> x) FROM t', /list_transform/],
    ['SELECT struct_pack(a) FROM t', /struct_pack/],
  ])('flags %s, which Trino parses', (sql, issue) => {
    expect(trinoSyntaxErrors(sql)).toEqual([]);
    expect(trinoFunctionIssues(sql).join('\n')).toMatch(issue);
  });

  it('accepts the listed functions, casts and table aliases', () => {
    expect(
      trinoFunctionIssues(
        "SELECT element_at(a, 1), CAST(ROW(1) AS ROW(n integer)) FROM t CROSS JOIN UNNEST(ARRAY['x']) AS u(d)",
      ),
    ).toEqual([]);
  });
});

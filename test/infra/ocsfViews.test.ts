import { describe, expect, it } from 'vitest';
import { FINDINGS_TABLE } from '../../lib/detect/findingsDataset.ts';
import { loadRulesSync } from '../../lib/detect/loadRules.ts';
import { ocsfViews } from '../../lib/ocsf/ocsfViews.ts';
import { trinoSqlIssues } from '../ocsf/trinoSqlIssues.ts';
import { synthApp } from './testApp.ts';

const { template } = synthApp();
const views = ocsfViews(FINDINGS_TABLE, loadRulesSync());

function deployed(name: string): { sql: string; text: string; columns: { name: string; type: string }[] } {
  const tables = Object.values(template.findResources('AWS::Glue::Table')) as {
    Properties: { TableInput: { Name: string; ViewOriginalText?: string } };
  }[];
  const input = tables.find((t) => t.Properties.TableInput.Name === name)?.Properties.TableInput;
  const text = input?.ViewOriginalText ?? '';
  const encoded = /^\/\* Presto View: (.+) \*\/$/.exec(text)?.[1] ?? '';
  const presto = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  return { sql: presto.originalSql, text, columns: presto.columns };
}

describe('the OCSF views in the stack', () => {
  it.each(Object.values(views))('deploys $name with the SQL the export runs, and its columns', (view) => {
    const d = deployed(view.name);
    expect(d.sql).toBe(view.sql);
    expect(d.columns).toEqual(view.columns.map((c) => ({ name: c.name, type: c.prestoType })));
    // Glue's limit on a view's text.
    expect(d.text.length).toBeLessThan(409_600);
  });

  it.each(Object.values(views))(
    '$name is Trino SQL (no DuckDB-only spelling, known functions, balanced)',
    (view) => {
      expect(trinoSqlIssues(view.sql)).toEqual([]);
    },
  );

  it('has no column OCSF does not define (no dt)', () => {
    for (const view of Object.values(views)) expect(view.columns.map((c) => c.name)).not.toContain('dt');
  });
});

describe('trinoSqlIssues', () => {
  it.each([
    ['SELECT x::varchar FROM t', /::/],
    ['SELECT CAST(x AS varchar[]) FROM t', /array type/],
    ['SELECT struct_pack(a := 1) FROM t', /DuckDB-only/],
    ['SELECT list_transform(a, x -> x) FROM t', /lambda/],
    ['SELECT epoch_ms(t) FROM t', /epoch_ms/],
    ['SELECT (1 FROM t', /parentheses/],
    ['SELECT [1, 2] FROM t', /list literal/],
  ])('flags %s', (sql, issue) => {
    expect(trinoSqlIssues(sql).join('\n')).toMatch(issue);
  });
});

import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { renderRuleSql } from '../../lib/detect/renderRuleSql.ts';
import { effectiveSettings, NO_OVERRIDES } from '../../lib/detect/ruleSettings.ts';
import { runRuleTests } from '../../lib/detect/runRuleTests.ts';
import { checkSqlSubset } from '../../lib/detect/sqlSubset.ts';

const rules = await loadRules();
const results = await runRuleTests(rules);

describe('detections/', () => {
  it('holds at least 8 rules, each with a positive and a negative yml test', () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const r of rules) {
      expect(
        r.tests.some((t) => t.findings.length > 0),
        r.id,
      ).toBe(true);
      expect(
        r.tests.some((t) => t.findings.length === 0),
        r.id,
      ).toBe(true);
      expect(r.attack.techniques, r.id).toContain('T1572');
    }
  });

  it.each(rules.map((r) => [r.id, r] as const))(
    '%s: its SQL is inside the Athena/DuckDB subset',
    (_, rule) => {
      expect(checkSqlSubset(rule.sql)).toEqual([]);
      const rendered = renderRuleSql(rule.sql, effectiveSettings(rule, NO_OVERRIDES), {
        since: '2026-03-01',
        until: '2026-03-02',
        now: new Date('2026-03-03T00:00:00Z'),
      });
      expect(rendered).toMatch(/dt >= '20\d\d-\d\d-\d\d'/);
    },
  );

  it.each(results.map((r) => [`${r.rule}: ${r.test}`, r] as const))('%s', (_, r) => {
    expect(r.message).toBe('');
    expect(r.ok).toBe(true);
  });
});

describe('checkSqlSubset', () => {
  const ok = "SELECT count(*) FROM tunnel_sessions WHERE dt >= '{{since}}'";
  it.each([
    [
      'extract(dow)',
      "SELECT extract(dow FROM start_time) FROM tunnel_sessions WHERE dt >= '{{since}}'",
      /extract/,
    ],
    ['a DuckDB cast', "SELECT start_time::date FROM tunnel_sessions WHERE dt >= '{{since}}'", /::/],
    [
      'a DuckDB-only function',
      "SELECT list_distinct(domains) FROM tunnel_sessions WHERE dt >= '{{since}}'",
      /list_distinct/,
    ],
    ['a read without a dt filter', 'SELECT count(*) FROM tunnel_sessions', /filters dt/],
    ['a list literal', "SELECT ['a', 'b'] FROM tunnel_sessions WHERE dt >= '{{since}}'", /list literals/],
    ['a subscript', "SELECT domains[1] FROM tunnel_sessions WHERE dt >= '{{since}}'", /subscripts/],
    [
      'the clock',
      "SELECT count(*) FROM tunnel_sessions WHERE dt >= '{{since}}' AND start_time < now()",
      /clock/,
    ],
  ])('rejects %s', (_, sql, why) => {
    expect(checkSqlSubset(sql).join('\n')).toMatch(why);
  });
  it('accepts shared functions, shims, the ARRAY[...] constructor and comments that name others', () => {
    expect(checkSqlSubset(`-- extract(dow) is not used\n${ok} AND regexp_like(lower(mode), 'x')`)).toEqual(
      [],
    );
    expect(checkSqlSubset("SELECT ARRAY [mode, 'x'] FROM tunnel_sessions WHERE dt >= '{{since}}'")).toEqual(
      [],
    );
  });
});

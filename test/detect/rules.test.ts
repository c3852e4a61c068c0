import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { renderRuleSql } from '../../lib/analytics/detect/renderRuleSql.ts';
import { OLDEST_DAY_SQL } from '../../lib/analytics/detect/ruleEngine.ts';
import type { SettingValue } from '../../lib/analytics/detect/ruleSchema.ts';
import { effectiveSettings, NO_OVERRIDES } from '../../lib/analytics/detect/ruleSettings.ts';
import { runRuleTests, TRINO_CHECK } from '../../lib/analytics/detect/runRuleTests.ts';
import { checkSqlSubset } from '../../lib/analytics/detect/sqlSubset.ts';
import { trinoRuleErrors } from '../../lib/analytics/detect/trinoRuleErrors.ts';
import { trinoSyntaxErrors } from '../support/trinoSyntaxErrors.ts';

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

  /** Settings a team writes on top of the rule's own: every kind of exemption, zone, days, holidays. */
  const TEAM: Record<string, SettingValue> = {
    exempt_networks: ['192.0.2.0/24', '203.0.113.8/32', '2001:db8:1::/48'],
    exempt_tokens: ['tok-ci-1', 'tok-ci-2'],
    time_zone: 'Europe/Berlin',
    workdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
    holidays: ['2026-12-25', '2026-12-26'],
  };
  it.each(rules.map((r) => [r.id, r] as const))(
    '%s: its SQL, as Athena receives it, parses with Trino grammar (defaults and a team settings file)',
    (_, rule) => {
      for (const extra of [{}, TEAM]) {
        const settings = { ...effectiveSettings(rule, NO_OVERRIDES), ...extra };
        // The rule in Athena's projection, and the query a finding's message names (every row of it).
        expect(trinoRuleErrors(rule, trinoSyntaxErrors, settings), rule.id).toEqual([]);
      }
    },
  );

  it('detect --test fails a rule whose SQL Athena would refuse, naming the statement and the position', async () => {
    const rule = rules.find((r) => r.id === 'udp_tunnel');
    if (!rule) throw new Error('no udp_tunnel');
    const broken = {
      ...rule,
      sql: rule.sql.replace('start_time AS first_seen', 'start_time::timestamp AS first_seen'),
    };
    expect(broken.sql).not.toBe(rule.sql);
    const out = await runRuleTests([broken]);
    const check = out.find((r) => r.test === TRINO_CHECK);
    expect(check?.ok).toBe(false);
    expect(check?.message).toMatch(/^the rule: \d+:\d+ /);
    // DuckDB runs it: its yml tests still pass.
    expect(out.filter((r) => r.test !== TRINO_CHECK).every((r) => r.ok)).toBe(true);
    expect((await runRuleTests([rule])).every((r) => r.ok)).toBe(true);
  });

  it('the Trino grammar check rejects what Athena would (a DuckDB cast, a list literal); the oldest-day query parses', () => {
    expect(trinoSyntaxErrors(OLDEST_DAY_SQL)).toEqual([]);
    expect(
      trinoSyntaxErrors("SELECT start_time::date FROM tunnel_sessions WHERE dt >= '2026-03-01'"),
    ).not.toEqual([]);
    expect(trinoSyntaxErrors("SELECT ['a', 'b'] FROM tunnel_sessions")).not.toEqual([]);
  });

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

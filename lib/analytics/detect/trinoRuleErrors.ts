import type { TrinoGrammar } from '../sql/trinoGrammar.ts';
import { rowsSqlOf } from './findingMessage.ts';
import { renderRuleSql } from './renderRuleSql.ts';
import { athenaRuleSql } from './ruleEngine.ts';
import { type DetectionRule, durationMs, type SettingValue } from './ruleSchema.ts';
import { effectiveSettings, NO_OVERRIDES } from './ruleSettings.ts';

/** An incident whose values need quoting, for the query a finding's message names. */
const SAMPLE_INCIDENT = {
  entity: "o'brien",
  token_hmac: 'tok',
  client_network: null,
  session_id: 's-1',
  first_seen: new Date('2026-03-01T10:00:00Z'),
  last_seen: new Date('2026-03-02T10:00:00Z'),
};

/**
 * The statements Athena receives for `rule`: its SQL rendered with `settings` (by default its own)
 * inside Athena's projection, and the query a finding's message names (every row of an incident).
 */
export function athenaStatements(
  rule: DetectionRule,
  settings: Readonly<Record<string, SettingValue>> = effectiveSettings(rule, NO_OVERRIDES),
): { name: string; sql: string }[] {
  const rendered = renderRuleSql(rule.sql, settings, {
    since: '2026-03-01',
    until: '2026-03-02',
    now: new Date('2026-03-03T00:00:00Z'),
    windowSeconds: durationMs(rule.window) / 1000,
  });
  return [
    { name: 'the rule', sql: athenaRuleSql(rendered) },
    { name: "a finding's rows", sql: rowsSqlOf(SAMPLE_INCIDENT, rule) },
  ];
}

/** Where Trino's grammar rejects what Athena receives for `rule`: one line per error, naming the statement. */
export function trinoRuleErrors(
  rule: DetectionRule,
  grammar: TrinoGrammar,
  settings?: Readonly<Record<string, SettingValue>>,
): string[] {
  return athenaStatements(rule, settings).flatMap(({ name, sql }) =>
    grammar(sql).map((e) => `${name}: ${e}`),
  );
}

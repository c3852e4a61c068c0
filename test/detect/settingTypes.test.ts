import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { renderRuleSql } from '../../lib/analytics/detect/renderRuleSql.ts';
import {
  effectiveSettings,
  parseDetectionSettings,
  settingTypeProblem,
} from '../../lib/analytics/detect/ruleSettings.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const rules = await loadRules();
const withThreshold = rules.find((r) => r.sql.includes('{{threshold}}'));
if (!withThreshold) throw new Error('a starter rule names {{threshold}}');

describe('a detection setting takes the type of its default', () => {
  it.each([
    {
      setting: 'threshold',
      value: '0--',
      says: /rule '.+' setting 'threshold' must be a finite number, as its default is, got "0--"/,
    },
    { setting: 'threshold', value: '5', says: /setting 'threshold' must be a finite number/ },
    { setting: 'threshold', value: 'user_email', says: /setting 'threshold' must be a finite number/ },
    { setting: 'threshold', value: ['1'], says: /setting 'threshold' must be a finite number/ },
  ])('refuses $setting: $value, naming the rule and the setting', ({ setting, value, says }) => {
    const raw = { rules: { [withThreshold.id]: { [setting]: value } } };
    let caught: unknown;
    try {
      parseDetectionSettings(raw, rules, 'detections.yml');
    } catch (error) {
      caught = error;
    }
    expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toMatch(/^detections\.yml: /);
    expect((caught as Error).message).toMatch(says);
    expect((caught as Error).message).toContain(withThreshold.id);
  });

  it.each([
    { value: 'UTC', byDefault: 'UTC', fine: true },
    { value: 7, byDefault: 'UTC', fine: false },
    { value: 3, byDefault: 2, fine: true },
    { value: Number.POSITIVE_INFINITY, byDefault: 2, fine: false },
    { value: '3', byDefault: 2, fine: false },
    { value: ['mon', 'tue'], byDefault: ['mon'], fine: true },
    { value: '2026-12-25', byDefault: [], fine: true },
    { value: 30, byDefault: [], fine: true },
  ])('$value for a default of $byDefault: $fine', ({ value, byDefault, fine }) => {
    expect(settingTypeProblem(byDefault, value) === undefined).toBe(fine);
  });

  it('writes a number setting into the SQL as the number, and nothing after it', () => {
    const o = parseDetectionSettings({ rules: { [withThreshold.id]: { threshold: 7 } } }, rules, 't');
    const sql = renderRuleSql(withThreshold.sql, effectiveSettings(withThreshold, o), {
      since: '2026-01-01',
      until: '2026-01-02',
      now: new Date('2026-01-02T00:00:00Z'),
    });
    expect(sql).not.toMatch(/\{\{threshold\}\}/);
    expect(sql).not.toContain('--\n');
    expect(sql).toMatch(/\b7\b/);
  });
});

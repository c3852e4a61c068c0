import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { allowlistRegex, renderRuleSql } from '../../lib/analytics/detect/renderRuleSql.ts';
import {
  effectiveSettings,
  parseDetectionSettings,
  ruleEnabled,
} from '../../lib/analytics/detect/ruleSettings.ts';

const rules = await loadRules();
const offHours = rules.find((r) => r.id === 'off_hours');
if (!offHours) throw new Error('off_hours is a starter rule');

describe('parseDetectionSettings / effectiveSettings', () => {
  it("applies shared settings to the rules that have them, then the rule's own", () => {
    const o = parseDetectionSettings(
      { settings: { time_zone: 'Europe/Berlin' }, rules: { off_hours: { workday_start: 8, enabled: true } } },
      rules,
      'test',
    );
    expect(effectiveSettings(offHours, o)).toEqual({
      threshold: 1,
      time_zone: 'Europe/Berlin',
      workday_start: 8,
      workday_end: 20,
      workdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      holidays: [],
      exempt_networks: [],
      exempt_tokens: [],
    });
    const udp = rules.find((r) => r.id === 'udp_tunnel');
    if (!udp) throw new Error('udp_tunnel is a starter rule');
    expect(effectiveSettings(udp, o)).toEqual({ threshold: 1, exempt_networks: [], exempt_tokens: [] });
    expect(
      ruleEnabled(udp, parseDetectionSettings({ rules: { udp_tunnel: { enabled: false } } }, rules, 't')),
    ).toBe(false);
  });

  it.each([
    [{ rules: { nope: {} } }, /no rule 'nope'/],
    [{ rules: { off_hours: { timezone: 'UTC' } } }, /has no setting 'timezone'/],
    [{ extra: 1 }, /test:/],
    [{ settings: { time_zone: 'Mars/Olympus' } }, /not an IANA time zone/],
    [{ settings: { holidays: ['25.12.2026'] } }, /not a day/],
    [{ settings: { workdays: ['monday', 'funday'] } }, /days are mon/],
    [
      { rules: { off_hours: { exempt_networks: ['198.51.100.0'] } } },
      /exempt_networks: '198.51.100.0' is not a network/,
    ],
    [{ rules: { off_hours: { exempt_networks: ['198.51.100.0/33'] } } }, /lengths are 0 to 32/],
    [{ rules: { off_hours: { exempt_networks: ['2001:db8::/129'] } } }, /lengths are 0 to 128/],
    [{ rules: { off_hours: { exempt_tokens: ["x' OR 1=1"] } } }, /not a token digest/],
  ])('refuses %j', (raw, why) => {
    expect(() => parseDetectionSettings(raw, rules, 'test')).toThrow(why);
  });
});

const NOW = new Date('2026-03-03T00:00:00Z');

describe('renderRuleSql', () => {
  it('fills the window and settings, and refuses values that could carry SQL', () => {
    const sql = renderRuleSql(offHours.sql, effectiveSettings(offHours, { settings: {}, rules: {} }), {
      since: '2026-03-01',
      until: '2026-03-02',
      now: NOW,
    });
    expect(sql).toContain("dt >= '2026-03-01' AND dt <= '2026-03-02'");
    expect(sql).toContain("AT TIME ZONE 'UTC'");
    expect(sql).not.toContain('{{');
    expect(() =>
      renderRuleSql(
        offHours.sql,
        { ...effectiveSettings(offHours, { settings: {}, rules: {} }), time_zone: "UTC' OR 1=1 --" },
        { since: '2026-03-01', until: '2026-03-02', now: NOW },
      ),
    ).toThrow(/time_zone/);
    expect(() =>
      renderRuleSql('SELECT {{nope}}', {}, { since: '2026-03-01', until: '2026-03-01', now: NOW }),
    ).toThrow(/\{\{nope\}\}/);
  });

  it('turns an allowlist into one anchored pattern of suffixes', () => {
    const re = new RegExp(allowlistRegex(['a.pinggy.link', 'corp.example']));
    expect(re.test('x.a.pinggy.link')).toBe(true);
    expect(re.test('corp.example')).toBe(true);
    expect(re.test('evilcorp.example')).toBe(false);
    expect(re.test('a.pinggy.link.evil.example')).toBe(false);
  });
});
